"""One exception hierarchy for the engine's errors, mapped from the JVM exception class (over py4j)
or from the class names Spark Connect reports, never from message text.

>>> try:
...     PaimonTable.for_name(spark, "paimon.default.orders").read(version=99)
... except SnapshotNotFoundError as e:
...     print(e.value)
99
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, Type

from pyspark.errors import PySparkException


class PaimonError(PySparkException):
    """Base class of every error raised by the paimon-spark engine. ``str(e)`` is the engine's
    message; ``value`` is what the error is about (the table, option, column, tag or snapshot it
    names) when there is one.

    >>> try:
    ...     spark.sql("ALTER TABLE paimon.default.orders SET TBLPROPERTIES ('bukcet' = '1')")
    ... except PaimonError as e:
    ...     print(type(e).__name__, e.value)
    InvalidOptionError bukcet
    """

    def __init__(self, message: str, origin: Optional[Any] = None, value: Optional[str] = None) -> None:
        super().__init__(message=message, messageParameters={} if value is None else {"value": value})
        self.java_exception = origin
        self.value = value

    def __str__(self) -> str:
        return self._message


class CommitConflictError(PaimonError):
    """A commit could not be applied on top of a concurrent commit; nothing was committed.

    >>> df.write.format("paimon").mode("error").save(path_holding_a_table)  # e.value == the table
    """


class CorruptFileError(PaimonError):
    """A schema, snapshot or manifest file cannot be parsed; the message names the file.

    >>> t.to_df()  # after snapshot-3 was truncated: e.value == ".../snapshot/snapshot-3"
    """


class InvalidOptionError(PaimonError):
    """A table option that looks like a misspelt Paimon option, or a malformed value.

    >>> t.set_options(bukcet=1)  # a misspelt 'bucket': e.value == "bukcet"
    """


class UnsupportedFeatureError(PaimonError):
    """A valid Paimon feature or option that paimon-spark does not implement yet.

    >>> t.set_options(**{"deletion-vectors.enabled": "true"})  # e.value == "deletion-vectors.enabled"
    """


class TableNotFoundError(PaimonError):
    """A path that is not a Paimon table, or a table that does not exist.

    >>> PaimonTable.for_path(spark, "/no/table/here")  # e.value == "/no/table/here"
    """


class InvalidIdentifierError(PaimonError):
    """A database or table name that cannot name a directory.

    >>> spark.table("paimon.default.`orders$nosuch`")  # e.value == "nosuch"
    """


class InvalidDataError(PaimonError):
    """Rows that cannot be written as they are (for example a null key).

    >>> t.update("id = 1", {"id": "2"})  # a key column assigned: e.value == "id"
    """


class VersionNotFoundError(PaimonError):
    """A snapshot, tag, branch or point in time that the table's history does not hold; the message
    names what it does hold. The subclasses say which kind of point.

    >>> t.read(version=99)  # a SnapshotNotFoundError, so a VersionNotFoundError too
    """


class SnapshotNotFoundError(VersionNotFoundError):
    """A snapshot id, or a point in time no snapshot covers; ``value`` is the id or the instant.

    >>> t.read(version=99)  # raises SnapshotNotFoundError, e.value == "99"
    """


class TagNotFoundError(VersionNotFoundError):
    """A tag that does not exist; ``value`` is its name.

    >>> t.read(tag="nope")  # raises TagNotFoundError, e.value == "nope"
    """


class BranchNotFoundError(VersionNotFoundError):
    """A branch that does not exist; ``value`` is its name.

    >>> spark.table("paimon.default.`orders$branch_nope`")  # raises BranchNotFoundError
    """


class VersionAlreadyExistsError(PaimonError):
    """A tag or branch name that is already taken.

    >>> t.create_tag("release-1")  # twice: e.value == "release-1"
    """


class SchemaMismatchError(PaimonError):
    """Data whose schema does not fit what reads it, such as a stream meeting a snapshot that renamed, dropped or
    retyped one of its columns; the message names the table, snapshot and column.

    >>> query.awaitTermination()  # a stream of t after a rename of one of its columns
    """


class SchemaChangeError(PaimonError):
    """A schema change Paimon's rules refuse, such as dropping a primary-key column or a lossy type change; the
    message names the table and column, and nothing was changed.

    >>> t.drop_column("id")  # a primary-key column: e.value == "id"
    """


class StorageError(PaimonError):
    """Storage that cannot hold the table: a bucket that does not exist, credentials the store refuses, an
    endpoint that does not answer, an object store without conditional writes. ``value`` is the path; the
    message names the setting to change. Nothing was written.

    >>> configure_spark_with_paimon(builder, warehouse="s3a://no-such-bucket/wh", s3=True)  # e.value == the path
    """


class MetastoreError(PaimonError):
    """A metastore that cannot be reached or refuses a call (``value`` is its URI), or a name it
    holds something other than a Paimon table under (``value`` is the table).

    >>> spark.sql("SELECT * FROM paimon.db.hive_parquet_table")  # e.value == "db.hive_parquet_table"
    """


class CatalogAccessError(PaimonError):
    """A catalog server that refused a request: its credentials not accepted (HTTP 401) or not enough
    (403). ``value`` is the catalog; the message never shows the credentials. Nothing was written.

    >>> spark.sql("SHOW TABLES IN rest_catalog.db")  # wrong token: e.value == "rest_catalog"
    """


class DependencyResolutionError(PaimonError):
    """Maven jars a session needs (the S3 set, say) that Spark's Ivy could not resolve; ``value`` is
    the set's name and the message says what Ivy reported and how to try again. No session was started.

    >>> configure_spark_with_paimon(builder, s3=True)  # offline, never fetched: e.value == "s3"
    """


_BY_JVM_CLASS: Dict[str, Type[PaimonError]] = {
    "paimonspark.PaimonException": PaimonError,
    "paimonspark.CommitConflictException": CommitConflictError,
    "paimonspark.CorruptFileException": CorruptFileError,
    "paimonspark.InvalidOptionException": InvalidOptionError,
    "paimonspark.UnsupportedFeatureException": UnsupportedFeatureError,
    "paimonspark.TableNotFoundException": TableNotFoundError,
    "paimonspark.InvalidIdentifierException": InvalidIdentifierError,
    "paimonspark.InvalidDataException": InvalidDataError,
    "paimonspark.VersionNotFoundException": VersionNotFoundError,
    "paimonspark.SnapshotNotFoundException": SnapshotNotFoundError,
    "paimonspark.TagNotFoundException": TagNotFoundError,
    "paimonspark.BranchNotFoundException": BranchNotFoundError,
    "paimonspark.VersionAlreadyExistsException": VersionAlreadyExistsError,
    "paimonspark.SchemaMismatchException": SchemaMismatchError,
    "paimonspark.SchemaChangeException": SchemaChangeError,
    "paimonspark.StorageException": StorageError,
    "paimonspark.MetastoreException": MetastoreError,
    "paimonspark.CatalogAccessException": CatalogAccessError,
}


def from_java(java_exception: Any) -> Optional[PaimonError]:
    """The Python error for a JVM exception whose cause chain holds an engine exception."""
    current, seen = java_exception, 0
    while current is not None and seen < 20:
        cls = _BY_JVM_CLASS.get(current.getClass().getName())
        if cls is not None:
            value = current.getMessageParameters().get("value")
            return cls(str(current.getMessage()), origin=current, value=None if value is None else str(value))
        current, seen = current.getCause(), seen + 1
    return None


def _from_connect(errors: Iterable[Any], metadata: Dict[str, str], message: str) -> Optional[PaimonError]:
    """The Python error for what a Spark Connect server reports: the chain of errors (root first) of
    its error details when it sent them, else the class names and parameters of the gRPC metadata."""
    for error in errors:
        cls = _BY_JVM_CLASS.get(error.error_type_hierarchy[0]) if error.error_type_hierarchy else None
        if cls is not None:
            parameters = error.spark_throwable.message_parameters if error.HasField("spark_throwable") else {}
            return cls(error.message, value=parameters.get("value"))
    classes: List[str] = json.loads(metadata.get("classes") or "[]")
    cls = _BY_JVM_CLASS.get(classes[0]) if classes else None
    if cls is None:
        return None
    parameters = json.loads(metadata.get("messageParameters") or "{}")
    return cls(message, value=parameters.get("value"))


def _error_chain(resp: Any) -> List[Any]:
    if resp is None or not resp.HasField("root_error_idx"):
        return []
    chain: List[Any] = []
    index = resp.root_error_idx
    while index is not None and index < len(resp.errors) and len(chain) < 20:
        error = resp.errors[index]
        chain.append(error)
        index = error.cause_idx if error.HasField("cause_idx") else None
    return chain


def install_exception_translation() -> None:
    """Make PySpark raise engine errors as PaimonError subclasses instead of raw Py4J or Spark
    Connect errors. Idempotent; the Connect half is skipped when Connect's client is not installed."""
    from pyspark.errors.exceptions import captured

    if not getattr(captured, "_paimon_translation", False):
        original = captured.convert_exception

        def convert_exception(e: Any) -> Exception:
            return from_java(e) or original(e)

        setattr(captured, "convert_exception", convert_exception)
        setattr(captured, "_paimon_translation", True)
    _install_connect_translation()


def _install_connect_translation() -> None:
    try:
        from pyspark.sql.connect.client import core
    except ImportError:  # Connect's optional dependencies (grpcio, ...) are not installed
        return
    if getattr(core, "_paimon_translation", False):
        return
    original = getattr(core, "convert_exception")

    def convert_exception(info: Any, truncated_message: str, resp: Any, *rest: Any) -> Exception:
        translated = _from_connect(_error_chain(resp), dict(info.metadata), truncated_message)
        return translated or original(info, truncated_message, resp, *rest)

    setattr(core, "convert_exception", convert_exception)
    setattr(core, "_paimon_translation", True)
