"""One exception hierarchy for the engine's errors, mapped from the JVM exception class."""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

from pyspark.errors.exceptions.captured import CapturedException


class PaimonError(CapturedException):
    """Base class of every error raised by the paimon-spark engine."""

    def __init__(self, message: str, origin: Optional[Any] = None) -> None:
        super().__init__(desc=message, stackTrace="", cause=None, origin=None)
        self.java_exception = origin

    def __str__(self) -> str:
        return str(self._desc)


class CommitConflictError(PaimonError):
    """A commit could not be applied on top of a concurrent commit; nothing was committed."""


class CorruptFileError(PaimonError):
    """A schema, snapshot or manifest file cannot be parsed; the message names the file."""


class InvalidOptionError(PaimonError):
    """A table option is unknown or its value is malformed."""


class UnsupportedFeatureError(PaimonError):
    """A valid Paimon feature or option that paimon-spark does not implement yet."""


class TableNotFoundError(PaimonError):
    """A path that is not a Paimon table, or a table that does not exist."""


class InvalidIdentifierError(PaimonError):
    """A database or table name that cannot name a directory."""


class InvalidDataError(PaimonError):
    """Rows that cannot be written as they are (for example a null key)."""


class VersionNotFoundError(PaimonError):
    """A snapshot, tag, branch or point in time that the table's history does not hold; the message
    names what it does hold."""


class VersionAlreadyExistsError(PaimonError):
    """A tag or branch name that is already taken."""


class SchemaMismatchError(PaimonError):
    """Data whose schema does not fit what reads it, such as a stream meeting a snapshot that renamed, dropped or
    retyped one of its columns; the message names the table, snapshot and column."""


class SchemaChangeError(PaimonError):
    """A schema change Paimon's rules refuse, such as dropping a primary-key column or a lossy type change; the
    message names the table and column, and nothing was changed."""


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
    "paimonspark.VersionAlreadyExistsException": VersionAlreadyExistsError,
    "paimonspark.SchemaMismatchException": SchemaMismatchError,
    "paimonspark.SchemaChangeException": SchemaChangeError,
}


def from_java(java_exception: Any) -> Optional[PaimonError]:
    """The Python error for a JVM exception whose cause chain holds an engine exception."""
    current, seen = java_exception, 0
    while current is not None and seen < 20:
        cls = _BY_JVM_CLASS.get(current.getClass().getName())
        if cls is not None:
            return cls(str(current.getMessage()), origin=current)
        current, seen = current.getCause(), seen + 1
    return None


def install_exception_translation() -> None:
    """Make PySpark raise engine errors as PaimonError subclasses instead of raw Py4J errors."""
    from pyspark.errors.exceptions import captured

    if getattr(captured, "_paimon_translation", False):
        return
    original = captured.convert_exception

    def convert_exception(e: Any) -> CapturedException:
        return from_java(e) or original(e)

    captured.convert_exception = convert_exception
    captured._paimon_translation = True
