package paimonspark

/**
 * The engine's exceptions. Every one extends [[PaimonException]], and the Python package maps each
 * class name to an exception class of its own, so callers can catch by kind on either side.
 */
class PaimonException(message: String, cause: Throwable = null) extends RuntimeException(message, cause)

/** A metadata file (schema, snapshot, manifest) that cannot be parsed; names the file. */
final class CorruptFileException(val file: String, cause: Throwable)
    extends PaimonException(s"Corrupt or truncated Paimon metadata file $file: ${cause.getMessage}", cause)

/** A commit that cannot be applied on top of what another writer committed meanwhile. */
final class CommitConflictException(message: String) extends PaimonException(message)

/** A table option that is unknown or whose value is malformed. */
final class InvalidOptionException(val option: String, message: String) extends PaimonException(message)

/** A valid Paimon table option or feature that this engine does not implement yet. */
final class UnsupportedFeatureException(message: String) extends PaimonException(message)

/** A path or name that is not a Paimon table, or a table that does not exist. */
final class TableNotFoundException(message: String) extends PaimonException(message)

/** A database or table name that cannot be used as a directory name. */
final class InvalidIdentifierException(message: String) extends PaimonException(message)

/** Data that cannot be written to a table as it is (for example a null in a key column). */
final class InvalidDataException(message: String) extends PaimonException(message)

/**
 * A snapshot, tag, branch or point in time of a table's history that does not exist (never did,
 * expired, or lies before the first snapshot); the message names what is available.
 */
final class VersionNotFoundException(message: String) extends PaimonException(message)

/** A tag or branch whose name is already taken. */
final class VersionAlreadyExistsException(message: String) extends PaimonException(message)

/**
 * Data whose schema does not fit what reads it: a stream started on one schema meeting a snapshot
 * whose schema renamed, dropped or retyped one of its columns; names the table, snapshot and column.
 */
final class SchemaMismatchException(message: String) extends PaimonException(message)

/**
 * A schema change Paimon's rules refuse (a partition or primary-key column dropped, renamed or
 * retyped, a lossy type change, a column that does not exist or already does); names the table and
 * the column. Nothing was changed.
 */
final class SchemaChangeException(val table: String, val column: String, message: String)
    extends PaimonException(message)
