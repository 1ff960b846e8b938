package paimonspark

import java.util.Collections

import org.apache.spark.SparkThrowable

/**
 * The engine's exceptions. Every one is a [[PaimonError]] (all but [[UnsupportedFeatureException]]
 * extend [[PaimonException]]), and the Python package maps each class name to an exception class of
 * its own, so callers can catch by kind on either side.
 *
 * `value` is what the error is about (the table, option, column, tag or snapshot named) when there
 * is one. It is exposed as Spark's message parameter `value` because that is the one structured
 * field Spark Connect carries to its clients besides the class names: a Python caller gets it over
 * py4j and Connect alike. There is no Spark error condition, so Spark keeps our message as it is.
 */
trait PaimonError extends SparkThrowable { this: RuntimeException =>
  /** What the error is about, or null. */
  def value: String
  override def getCondition: String = null
  override def getSqlState: String = null
  override def isInternalError: Boolean = false
  override def getMessageParameters: java.util.Map[String, String] =
    if (value == null) Collections.emptyMap() else Collections.singletonMap("value", value)
}

class PaimonException(message: String, cause: Throwable = null, val value: String = null)
    extends RuntimeException(message, cause) with PaimonError

/** A metadata file (schema, snapshot, manifest) or data file that cannot be parsed; names the file. */
final class CorruptFileException(val file: String, cause: Throwable, message: String)
    extends PaimonException(message, cause, file) {
  def this(file: String, cause: Throwable) = this(file, cause, s"Corrupt or truncated Paimon metadata file $file: ${cause.getMessage}")
}

/** A commit that cannot be applied on top of what another writer committed meanwhile; names the table. */
final class CommitConflictException(table: String, message: String) extends PaimonException(message, value = table)

/** A table option that is unknown or whose value is malformed. */
final class InvalidOptionException(val option: String, message: String) extends PaimonException(message, value = option)

/**
 * A valid Paimon table option or feature that this engine does not implement yet, or an operation a
 * table does not allow; names it when it has a name. A `java.lang.UnsupportedOperationException`, as
 * Paimon's refusals are, so that code catching those keeps working.
 */
final class UnsupportedFeatureException(message: String, feature: String = null)
    extends UnsupportedOperationException(message) with PaimonError {
  override val value: String = feature
}

/** A path or name that is not a Paimon table, or a table that does not exist. */
final class TableNotFoundException(table: String, message: String) extends PaimonException(message, value = table)

/** A database or table name that cannot be used as a directory name. */
final class InvalidIdentifierException(name: String, message: String) extends PaimonException(message, value = name)

/** Data that cannot be written to a table as it is (for example a null in a key column); names the column. */
final class InvalidDataException(message: String, column: String = null) extends PaimonException(message, value = column)

/**
 * A point of a table's history that does not exist (never did, expired, or lies before the first
 * snapshot); the message names what is available. The subclasses say which kind of point.
 */
sealed class VersionNotFoundException(message: String, point: String) extends PaimonException(message, value = point)

/** A snapshot id, or a point in time no snapshot covers; `value` is the id or the instant. */
final class SnapshotNotFoundException(message: String, snapshot: String) extends VersionNotFoundException(message, snapshot)

/** A tag that does not exist; `value` is its name. */
final class TagNotFoundException(message: String, tag: String) extends VersionNotFoundException(message, tag)

/** A branch that does not exist or has no snapshot; `value` is its name. */
final class BranchNotFoundException(message: String, branch: String) extends VersionNotFoundException(message, branch)

/** A tag or branch whose name is already taken. */
final class VersionAlreadyExistsException(name: String, message: String) extends PaimonException(message, value = name)

/**
 * Data whose schema does not fit what reads it: a stream started on one schema meeting a snapshot
 * whose schema renamed, dropped or retyped one of its columns; names the table, snapshot and column.
 */
final class SchemaMismatchException(column: String, message: String) extends PaimonException(message, value = column)

/**
 * A schema change Paimon's rules refuse (a partition or primary-key column dropped, renamed or
 * retyped, a lossy type change, a column that does not exist or already does); names the table and
 * the column. Nothing was changed.
 */
final class SchemaChangeException(val table: String, val column: String, message: String)
    extends PaimonException(message, value = column)

/**
 * Storage that cannot be used as a table's place: a bucket that does not exist, credentials the
 * store refuses, an endpoint that does not answer, an object store that cannot make commits safe.
 * Names the path (and the option to change, in the message). Raised before anything is written.
 */
final class StorageException(path: String, message: String, cause: Throwable = null)
    extends PaimonException(message, cause, path)

/**
 * A metastore that cannot be reached, refuses a call, or holds something other than a Paimon table
 * under a name; names the metastore's URI, or the table. A catalog operation that fails this way
 * leaves no half-created table behind.
 */
final class MetastoreException(name: String, message: String, cause: Throwable = null)
    extends PaimonException(message, cause, name)

/**
 * A catalog server that refused a request (HTTP 401: the credentials are not accepted; 403: they do
 * not grant it); names the catalog. Never shows the credentials. Nothing was written after it.
 */
final class CatalogAccessException(catalog: String, message: String) extends PaimonException(message, value = catalog)
