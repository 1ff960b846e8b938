"""paimon_spark: Apache Paimon tables in PySpark, written and read by a Spark-native engine."""

from paimon_spark.errors import (
    BranchNotFoundError,
    CatalogAccessError,
    CommitConflictError,
    CorruptFileError,
    DependencyResolutionError,
    InvalidDataError,
    InvalidIdentifierError,
    InvalidOptionError,
    MetastoreError,
    PaimonError,
    SchemaChangeError,
    SchemaMismatchError,
    SnapshotNotFoundError,
    StorageError,
    TableNotFoundError,
    TagNotFoundError,
    UnsupportedFeatureError,
    VersionAlreadyExistsError,
    VersionNotFoundError,
)
from paimon_spark.session import configure_spark_with_paimon, engine_jar
from paimon_spark.table import PaimonTable
from paimon_spark.version import __version__

__all__ = [
    "BranchNotFoundError",
    "CatalogAccessError",
    "CommitConflictError",
    "CorruptFileError",
    "DependencyResolutionError",
    "InvalidDataError",
    "InvalidIdentifierError",
    "InvalidOptionError",
    "MetastoreError",
    "PaimonError",
    "PaimonTable",
    "SchemaChangeError",
    "SchemaMismatchError",
    "SnapshotNotFoundError",
    "StorageError",
    "TableNotFoundError",
    "TagNotFoundError",
    "UnsupportedFeatureError",
    "VersionAlreadyExistsError",
    "VersionNotFoundError",
    "__version__",
    "configure_spark_with_paimon",
    "engine_jar",
]
