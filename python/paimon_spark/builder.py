"""Creating a Paimon table from Python: a builder whose ``execute()`` runs one CREATE TABLE statement."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Union

from pyspark.sql import SparkSession
from pyspark.sql.types import DataType, StructType

from paimon_spark import _sql

if TYPE_CHECKING:
    from paimon_spark.table import PaimonTable

__all__ = ["PaimonTableBuilder"]

_STATEMENTS = {
    "create": "CREATE TABLE",
    "create_if_not_exists": "CREATE TABLE IF NOT EXISTS",
    "create_or_replace": "CREATE OR REPLACE TABLE",
}


class PaimonTableBuilder:
    """The definition of a new table, from :meth:`PaimonTable.create`, :meth:`PaimonTable.create_if_not_exists`
    or :meth:`PaimonTable.create_or_replace`. Every setter returns the builder.

    >>> t = (PaimonTable.create(spark).name("paimon.default.orders")
    ...      .column("id", "BIGINT", nullable=False).column("status", StringType(), comment="order state")
    ...      .column("day", "DATE").primary_key("id", "day").partitioned_by("day")
    ...      .option("bucket", "4").comment("orders by day").execute())
    """

    def __init__(self, spark: SparkSession, mode: str) -> None:
        if mode not in _STATEMENTS:
            raise ValueError(f"unknown create mode {mode!r}: use one of {sorted(_STATEMENTS)}")
        self._spark = spark
        self._mode = mode
        self._name: Optional[str] = None
        self._location: Optional[str] = None
        self._columns: List[str] = []
        self._primary_key: List[str] = []
        self._partitioned_by: List[str] = []
        self._options: Dict[str, str] = {}
        self._comment: Optional[str] = None

    def name(self, name: str) -> "PaimonTableBuilder":
        """The table's name, as :meth:`PaimonTable.for_name` takes it (``paimon.db.t``, ``db.t``, ``t``).

        >>> PaimonTable.create(spark).name("paimon.default.t").column("id", "INT").execute()
        """
        self._name = name
        return self

    def location(self, path: str) -> "PaimonTableBuilder":
        """Creates the table at a path instead of by name; open it later with :meth:`PaimonTable.for_path`.
        Catalog tables live in their warehouse, so a name and a location together are refused by the engine.

        >>> PaimonTable.create(spark).location("/data/tables/t").column("id", "INT").execute()
        """
        self._location = path
        return self

    def column(self, name: str, data_type: Union[str, DataType], nullable: bool = True,
               comment: Optional[str] = None) -> "PaimonTableBuilder":
        """Adds a column; its type is a DDL string (``"DECIMAL(10, 2)"``) or a Spark ``DataType``.

        >>> builder.column("amount", DecimalType(10, 2), nullable=False, comment="in euros")
        """
        ddl = data_type if isinstance(data_type, str) else data_type.simpleString()
        text = f"{_sql.identifier(name)} {ddl}" + ("" if nullable else " NOT NULL")
        self._columns.append(text + (f" COMMENT {_sql.string(comment)}" if comment is not None else ""))
        return self

    def columns(self, schema: StructType) -> "PaimonTableBuilder":
        """Adds every field of a Spark schema as a column, with its nullability and ``comment`` metadata.

        >>> builder.columns(df.schema)
        """
        for field in schema.fields:
            self.column(field.name, field.dataType, field.nullable, field.metadata.get("comment"))
        return self

    def primary_key(self, *columns: str) -> "PaimonTableBuilder":
        """The primary key (Paimon's ``primary-key`` option): a table of upserts, merged by key.

        >>> builder.primary_key("id", "day")
        """
        self._primary_key = list(columns)
        return self

    def partitioned_by(self, *columns: str) -> "PaimonTableBuilder":
        """The partition columns; with a primary key, they must be part of it.

        >>> builder.partitioned_by("day")
        """
        self._partitioned_by = list(columns)
        return self

    def option(self, key: str, value: object) -> "PaimonTableBuilder":
        """Sets one table option (any Paimon table option, such as ``bucket`` or ``merge-engine``).

        >>> builder.option("merge-engine", "partial-update")
        """
        self._options[key] = str(value).lower() if isinstance(value, bool) else str(value)
        return self

    def options(self, options: Mapping[str, object]) -> "PaimonTableBuilder":
        """Sets several table options.

        >>> builder.options({"bucket": 4, "changelog-producer": "input"})
        """
        for key, value in options.items():
            self.option(key, value)
        return self

    def comment(self, text: str) -> "PaimonTableBuilder":
        """The table's comment.

        >>> builder.comment("orders by day")
        """
        self._comment = text
        return self

    def execute(self) -> "PaimonTable":
        """Creates the table (one statement, one schema file) and returns it.

        >>> t = PaimonTable.create_if_not_exists(spark).name("t").column("id", "INT").execute()
        """
        from paimon_spark.table import PaimonTable

        if self._name is None and self._location is None:
            raise ValueError("give the new table a name() or a location()")
        if not self._columns:
            raise ValueError(f"table {self._name or self._location}: add at least one column()")
        table = (PaimonTable._named(self._spark, self._name) if self._name is not None
                 else PaimonTable(self._spark, PaimonTable.PATH_CATALOG, self._location))  # type: ignore[arg-type]
        options = dict(self._options)
        if self._primary_key:
            options["primary-key"] = ",".join(self._primary_key)
        clauses = [f"{_STATEMENTS[self._mode]} {table.name} ({', '.join(self._columns)}) USING paimon"]
        if self._partitioned_by:
            clauses.append(f"PARTITIONED BY ({', '.join(map(_sql.identifier, self._partitioned_by))})")
        if self._name is not None and self._location is not None:
            clauses.append(f"LOCATION {_sql.string(self._location)}")
        if self._comment is not None:
            clauses.append(f"COMMENT {_sql.string(self._comment)}")
        if options:
            pairs = ", ".join(f"{_sql.string(k)} = {_sql.string(v)}" for k, v in options.items())
            clauses.append(f"TBLPROPERTIES ({pairs})")
        self._spark.sql(" ".join(clauses))
        return table
