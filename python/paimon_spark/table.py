"""A Paimon table of a Spark session, addressed by name, with its maintenance operations."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

from pyspark.sql import SparkSession

__all__ = ["PaimonTable"]


def _sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


class PaimonTable:
    """A Paimon table by its name (``catalog.db.table``, ``db.table`` or ``table``).

    Every method is one SQL statement, so the class works the same over Spark Connect.
    """

    def __init__(self, spark: SparkSession, name: str) -> None:
        parts = name.split(".")
        if len(parts) == 3:
            catalog, database, table = parts
        elif len(parts) == 2:
            catalog, (database, table) = spark.catalog.currentCatalog(), parts
        elif len(parts) == 1:
            catalog, database, table = spark.catalog.currentCatalog(), spark.catalog.currentDatabase(), parts[0]
        else:
            raise ValueError(f"'{name}' is not a table name: use catalog.db.table, db.table or table")
        self._spark = spark
        self.catalog, self.database, self.table = catalog, database, table

    @classmethod
    def for_name(cls, spark: SparkSession, name: str) -> "PaimonTable":
        return cls(spark, name)

    @property
    def name(self) -> str:
        return f"{self.catalog}.{self.database}.{self.table}"

    def compact(self, full: bool = True, partitions: Optional[Sequence[Mapping[str, str]]] = None) -> bool:
        """Compacts the table; returns whether a COMPACT snapshot was committed.

        Primary-key tables: ``full`` merges every bucket into one sorted run at the top level;
        otherwise Paimon's universal picker decides per bucket. Append tables: the small files of
        each partition are rewritten once there are ``compaction.min.file-num`` of them, whatever
        ``full`` says (as in Paimon). ``partitions`` limits the work to partitions given as
        ``{column: value}`` mappings.
        """
        args = [f"table => {_sql_string(f'{self.database}.{self.table}')}",
                f"compact_strategy => {_sql_string('full' if full else 'minor')}"]
        if partitions:
            spec = ";".join(",".join(f"{k}={v}" for k, v in p.items()) for p in partitions)
            args.append(f"partitions => {_sql_string(spec)}")
        rows = self._spark.sql(f"CALL {self.catalog}.sys.compact({', '.join(args)})").collect()
        return bool(rows[0][0])
