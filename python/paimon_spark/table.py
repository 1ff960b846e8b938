"""A Paimon table of a Spark session, by name or by path: reads, history, writes and maintenance."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructField, StructType

from paimon_spark import _sql
from paimon_spark.builder import PaimonTableBuilder
from paimon_spark.errors import TableNotFoundError, UnsupportedFeatureError, install_exception_translation

if TYPE_CHECKING:
    from paimon_spark.merge import PaimonMergeBuilder

__all__ = ["PaimonTable"]

_MAX_ROWS = 2**31 - 1  # Spark's largest LIMIT


class PaimonTable:
    """A Paimon table, addressed by name or by path. Every method is one engine call made as one SQL
    statement (a query, DDL or ``CALL``), so the class needs nothing but the session.

    >>> t = PaimonTable.for_name(spark, "paimon.default.orders")
    >>> t.history().select("snapshot_id", "commit_kind").show()
    """

    PATH_CATALOG: ClassVar[str] = "paimon_path"
    """The catalog :func:`configure_spark_with_paimon` registers whose table names are paths."""

    def __init__(self, spark: SparkSession, catalog: str, table: str) -> None:
        """Prefer :meth:`for_name` and :meth:`for_path`. ``table`` is ``db.table`` in ``catalog``, or
        a path when ``catalog`` is the path catalog."""
        install_exception_translation()  # engine errors as PaimonError, over py4j and Spark Connect alike
        self._spark = spark
        self.catalog = catalog
        self.table = table

    @classmethod
    def create(cls, spark: SparkSession) -> PaimonTableBuilder:
        """A builder for a new table; ``execute()`` fails if the table exists.

        >>> PaimonTable.create(spark).name("paimon.default.t").column("id", "INT").primary_key("id").execute()
        """
        return PaimonTableBuilder(spark, "create")

    @classmethod
    def create_if_not_exists(cls, spark: SparkSession) -> PaimonTableBuilder:
        """A builder for a table created unless it exists (then it is left as it is).

        >>> PaimonTable.create_if_not_exists(spark).name("t").column("id", "INT").execute()
        """
        return PaimonTableBuilder(spark, "create_if_not_exists")

    @classmethod
    def create_or_replace(cls, spark: SparkSession) -> PaimonTableBuilder:
        """A builder for a table that replaces any table of that name: the old one, its data and
        history are dropped first (not atomically).

        >>> PaimonTable.create_or_replace(spark).name("t").column("id", "INT").execute()
        """
        return PaimonTableBuilder(spark, "create_or_replace")

    @classmethod
    def for_name(cls, spark: SparkSession, name: str) -> "PaimonTable":
        """The table ``name`` names: ``catalog.db.table``, ``db.table`` or ``table`` in the current
        catalog and database; :class:`TableNotFoundError` when there is none.

        >>> PaimonTable.for_name(spark, "paimon.default.orders").latest_snapshot_id()
        3
        """
        return cls._named(spark, name)._existing(name)

    @classmethod
    def for_path(cls, spark: SparkSession, path: str) -> "PaimonTable":
        """The table stored at ``path`` (any Hadoop file system URI or a local path);
        :class:`TableNotFoundError` when it holds none.

        >>> PaimonTable.for_path(spark, "/data/warehouse/default.db/orders").to_df().count()
        42
        """
        return cls(spark, cls.PATH_CATALOG, path)._existing(path)

    @classmethod
    def _named(cls, spark: SparkSession, name: str) -> "PaimonTable":
        parts = name.split(".")
        if len(parts) == 3:
            return cls(spark, parts[0], f"{parts[1]}.{parts[2]}")
        if len(parts) == 2:
            return cls(spark, spark.catalog.currentCatalog(), name)
        if len(parts) == 1:
            return cls(spark, spark.catalog.currentCatalog(), f"{spark.catalog.currentDatabase()}.{name}")
        raise ValueError(f"'{name}' is not a table name: use catalog.db.table, db.table or table")

    def _existing(self, given: str) -> "PaimonTable":
        if not self._spark.catalog.tableExists(self.name):
            raise TableNotFoundError(f"there is no table {self.name}", value=given)
        return self

    @classmethod
    def is_paimon_table(cls, spark: SparkSession, name_or_path: str) -> bool:
        """Whether a name (or a path, when it holds a ``/``) is a Paimon table.

        >>> PaimonTable.is_paimon_table(spark, "paimon.default.orders")
        True
        """
        table = cls(spark, cls.PATH_CATALOG, name_or_path) if "/" in name_or_path else cls._named(spark, name_or_path)
        try:
            # Only a Paimon table has the options system table.
            spark.sql(f"SELECT * FROM {table._ident('$options')} LIMIT 0").collect()
            return True
        except Exception:  # noqa: BLE001 - any failure to load it means it is not one
            return False

    @property
    def name(self) -> str:
        """The table's name as Spark SQL takes it (a quoted path for a table opened by path).

        >>> spark.sql(f"SELECT count(*) FROM {t.name}")
        """
        return self._ident()

    def _ident(self, suffix: str = "") -> str:
        if self.catalog == self.PATH_CATALOG:
            return f"{self.PATH_CATALOG}.{_sql.identifier(self.table + suffix)}"
        database, table = self.table.split(".", 1)
        return ".".join(_sql.identifier(p) for p in (self.catalog, database, table + suffix))

    def _call(self, procedure: str, **args: object) -> List[Tuple[Any, ...]]:
        given = [f"table => {_sql.string(self.table)}"] + [
            f"{k} => {_sql.string(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else v}"
            for k, v in args.items() if v is not None]
        return [tuple(r) for r in self._spark.sql(
            f"CALL {_sql.identifier(self.catalog)}.sys.{procedure}({', '.join(given)})").collect()]

    def _expression(self, value: _sql.Condition) -> str:
        """SQL text of a condition or value: a string as it is; a Column as Spark resolves it
        against this table (classic sessions only: a Connect Column holds no resolved expression)."""
        if isinstance(value, str):
            return value
        jdf = getattr(self.to_df().select(value), "_jdf", None)
        if jdf is None:
            raise UnsupportedFeatureError("over Spark Connect, give conditions and values as SQL strings, not Columns")
        resolved = jdf.queryExecution().analyzed().projectList().apply(0)
        return str((resolved.child() if resolved.getClass().getSimpleName() == "Alias" else resolved).sql())

    def _millis(self, moment: _sql.Timestamp) -> int:
        """Epoch milliseconds of a point in time, read by Spark in the session time zone."""
        row = self._spark.sql(f"SELECT unix_millis(TIMESTAMP {_sql.string(_sql.timestamp(moment))})").first()
        return int(row[0])  # type: ignore[index]

    # Reading

    def to_df(self) -> DataFrame:
        """The table's latest state.

        >>> t.to_df().where("amount > 10").count()
        """
        return self._spark.table(self._ident())

    def read(self, version: Optional[int] = None, timestamp: Optional[_sql.Timestamp] = None,
             tag: Optional[str] = None) -> DataFrame:
        """The table as of a snapshot id, a point in time or a tag (one of them), with the schema it
        had then.

        >>> t.read(version=1).count()
        >>> t.read(timestamp=datetime(2026, 11, 23, 9, 30))
        >>> t.read(tag="release-1")
        """
        given = [v for v in (version, timestamp, tag) if v is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of version, timestamp and tag")
        if version is not None:
            point = f"VERSION AS OF {int(version)}"
        elif tag is not None:
            point = f"VERSION AS OF {_sql.string(tag)}"
        else:
            point = f"TIMESTAMP AS OF {_sql.string(_sql.timestamp(timestamp))}"  # type: ignore[arg-type]
        return self._spark.sql(f"SELECT * FROM {self._ident()} {point}")

    def changes(self, start_version: Optional[int] = None, end_version: Optional[int] = None,
                start_timestamp: Optional[_sql.Timestamp] = None,
                end_timestamp: Optional[_sql.Timestamp] = None) -> DataFrame:
        """The rows the commits after ``start_version`` up to ``end_version`` (default: the latest)
        changed, led by a ``rowkind`` column (``+I``, ``-U``, ``+U``, ``-D``) as ``$audit_log``
        shows them; or those of the commits between two points in time.

        >>> t.changes(start_version=2).where("rowkind = '-D'")
        """
        if start_timestamp is not None or end_timestamp is not None:
            if start_version is not None or end_version is not None:
                raise ValueError("give versions or timestamps, not both")
            start = self._millis(start_timestamp) if start_timestamp is not None else 0
            end = self._millis(end_timestamp) if end_timestamp is not None else 2**62
            option = ("incremental-between-timestamp", f"{start},{end}")
        else:
            end_id = end_version if end_version is not None else self.latest_snapshot_id() or 0
            option = ("incremental-between", f"{start_version or 0},{end_id}")
        return self._spark.read.option(*option).table(self._ident("$audit_log"))

    def stream_changes(self, start_version: Optional[int] = None, **options: object) -> DataFrame:
        """A streaming DataFrame of the table's changes, led by a ``rowkind`` column as
        :meth:`changes`: from snapshot ``start_version`` on (that snapshot's changes included), or as
        ``scan.mode`` and the other read options in ``options`` say (default: the current state,
        then every commit after it).

        >>> (t.stream_changes(start_version=2, **{"read.stream.maxFilesPerTrigger": 1})
        ...   .writeStream.option("checkpointLocation", "/tmp/cp").toTable("paimon.default.audit"))
        """
        reader = self._spark.readStream
        if start_version is not None:
            reader = reader.option("scan.snapshot-id", str(int(start_version)))
        for key, value in options.items():
            reader = reader.option(key, str(value).lower() if isinstance(value, bool) else str(value))
        return reader.table(self._ident("$audit_log"))

    def history(self, limit: Optional[int] = None) -> DataFrame:
        """The table's snapshots (the ``$snapshots`` columns), newest first.

        >>> t.history(limit=1).first().commit_kind
        'APPEND'
        """
        # Always with a LIMIT: the engine then applies ORDER BY ... LIMIT itself, sparing Spark a sort.
        rows = _MAX_ROWS if limit is None else int(limit)
        return self._spark.sql(f"SELECT * FROM {self._ident('$snapshots')} ORDER BY snapshot_id DESC LIMIT {rows}")

    def latest_snapshot_id(self) -> Optional[int]:
        """The id of the latest snapshot, or None for a table never written.

        >>> t.latest_snapshot_id()
        3
        """
        # The engine answers ORDER BY ... LIMIT 1 by reading one snapshot file; collect() rather than
        # first(), which would plan the query a second time.
        rows = self._spark.sql(f"SELECT snapshot_id FROM {self._ident('$snapshots')} "
                               "ORDER BY snapshot_id DESC LIMIT 1").collect()
        return int(rows[0][0]) if rows else None

    def tags(self) -> DataFrame:
        """The table's tags (``$tags``).

        >>> t.tags().select("tag_name", "snapshot_id").show()
        """
        return self._spark.table(self._ident("$tags"))

    def branches(self) -> DataFrame:
        """The table's branches (``$branches``).

        >>> t.branches().select("branch_name").show()
        """
        return self._spark.table(self._ident("$branches"))

    def files(self) -> DataFrame:
        """The live data files of the latest snapshot (``$files``).

        >>> t.files().select("partition", "bucket", "file_path", "record_count").show()
        """
        return self._spark.table(self._ident("$files"))

    def partitions(self) -> DataFrame:
        """One row per partition with its record count, size and file count (``$partitions``).

        >>> t.partitions().orderBy("partition").show()
        """
        return self._spark.table(self._ident("$partitions"))

    def schema(self) -> StructType:
        """The table's current columns as a Spark schema.

        >>> t.schema().fieldNames()
        ['id', 'status', 'day']
        """
        return self.to_df().schema

    def schemas(self) -> DataFrame:
        """Every schema version of the table (``$schemas``).

        >>> t.schemas().select("schema_id", "fields").show(truncate=False)
        """
        return self._spark.table(self._ident("$schemas"))

    def options(self) -> Dict[str, str]:
        """The table's options.

        >>> t.options()["bucket"]
        '4'
        """
        return {r[0]: r[1] for r in self._spark.table(self._ident("$options")).collect()}

    def primary_keys(self) -> List[str]:
        """The primary-key columns; empty for an append table.

        >>> t.primary_keys()
        ['id', 'day']
        """
        return self._latest_schema_list("primary_keys")

    def partition_keys(self) -> List[str]:
        """The partition columns; empty for an unpartitioned table.

        >>> t.partition_keys()
        ['day']
        """
        return self._latest_schema_list("partition_keys")

    def _latest_schema_list(self, column: str) -> List[str]:
        row = self.schemas().orderBy("schema_id", ascending=False).select(column).first()
        return list(json.loads(row[0])) if row is not None else []

    # Writing

    def append(self, df: DataFrame) -> None:
        """Appends ``df``'s rows (upserts them, on a primary-key table), by column name.

        >>> t.append(spark.createDataFrame([(7, "new", "2026-11-24")], "id INT, status STRING, day STRING"))
        """
        df.writeTo(self._ident()).append()

    def overwrite(self, df: DataFrame, partition: Optional[Mapping[str, object]] = None) -> None:
        """Replaces the whole table, or only the partition ``{column: value}``, with ``df``'s rows.

        >>> t.overwrite(fixed_rows, partition={"day": "2026-11-24"})
        """
        from pyspark.sql.functions import col, lit

        condition = lit(True)
        for key, value in (partition or {}).items():
            condition = condition & (col(key) == lit(value))
        df.writeTo(self._ident()).overwrite(condition)

    def upsert(self, df: DataFrame) -> None:
        """Writes ``df``'s rows as the new versions of their keys (primary-key tables only).

        >>> t.upsert(spark.createDataFrame([(1, "paid")], "id INT, status STRING"))
        """
        if not self.primary_keys():
            raise UnsupportedFeatureError(f"table {self.name} has no primary key: upsert needs one; use append")
        self.append(df)

    def delete(self, condition: _sql.Condition) -> None:
        """Deletes the rows matching ``condition`` (a SQL string or a Column).

        >>> t.delete("status = 'cancelled'")
        """
        self._spark.sql(f"DELETE FROM {self._ident()} WHERE {self._expression(condition)}")

    def update(self, condition: Optional[_sql.Condition], set: Mapping[str, _sql.Condition]) -> None:
        """Sets columns to values (SQL strings or Columns) in the rows matching ``condition`` (all
        rows when None).

        >>> t.update("id = 1", {"status": "'shipped'"})
        """
        assignments = ", ".join(f"{_sql.identifier(k)} = {self._expression(v)}" for k, v in set.items())
        where = f" WHERE {self._expression(condition)}" if condition is not None else ""
        self._spark.sql(f"UPDATE {self._ident()} SET {assignments}{where}")

    def merge(self, source: DataFrame, condition: _sql.Condition) -> "PaimonMergeBuilder":
        """A ``MERGE INTO`` this table from ``source`` on ``condition``; add clauses, then
        ``execute()``. See :class:`paimon_spark.merge.PaimonMergeBuilder`.

        >>> t.merge(updates.alias("s"), "orders.id = s.id").when_matched_update_all().execute()
        """
        from paimon_spark.merge import PaimonMergeBuilder

        return PaimonMergeBuilder(self, source, condition)

    # Maintenance

    def compact(self, full: bool = True, partitions: Optional[Sequence[Mapping[str, str]]] = None) -> bool:
        """Compacts the table; returns whether a COMPACT snapshot was committed.

        Primary-key tables: ``full`` merges every bucket into one sorted run at the top level;
        otherwise Paimon's universal picker decides per bucket. Append tables: the small files of
        each partition are rewritten once there are ``compaction.min.file-num`` of them, whatever
        ``full`` says (as in Paimon). ``partitions`` limits the work to partitions given as
        ``{column: value}`` mappings.

        >>> t.compact(partitions=[{"day": "2026-11-24"}])
        True
        """
        rows = self._call("compact", compact_strategy="full" if full else "minor",
                          partitions=self._partition_spec(partitions))
        return bool(rows[0][0])

    def rescale(self, bucket_num: Optional[int] = None,
                partitions: Optional[Sequence[Mapping[str, str]]] = None) -> None:
        """Rewrites partitions (all by default) into ``bucket_num`` buckets, the table's ``bucket`` unless given.

        Paimon's way to change a fixed bucket count: set the option, then rescale the partitions,
        which keep their old count until then (a write into one fails).

        >>> t.set_options(bucket=8)
        >>> t.rescale(partitions=[{"day": "2026-11-24"}])
        """
        self._call("rescale", bucket_num=bucket_num, partitions=self._partition_spec(partitions))

    @staticmethod
    def _partition_spec(partitions: Optional[Sequence[Mapping[str, str]]]) -> Optional[str]:
        """Paimon's ``k1=v1,k2=v2;k1=v3`` text of partitions given as ``{column: value}`` mappings."""
        return ";".join(",".join(f"{k}={v}" for k, v in p.items()) for p in partitions) if partitions else None

    def expire_snapshots(self, retain_max: Optional[int] = None, retain_min: Optional[int] = None,
                         older_than: Optional[_sql.Timestamp] = None) -> int:
        """Expires old snapshots by the given bounds (the table's options otherwise); returns how many.

        >>> t.expire_snapshots(retain_max=5)
        """
        rows = self._call("expire_snapshots", retain_max=retain_max, retain_min=retain_min,
                          older_than=_sql.timestamp(older_than) if older_than is not None else None)
        return int(rows[0][0])

    def create_tag(self, name: str, version: Optional[int] = None, time_retained: Optional[str] = None) -> None:
        """Tags a snapshot (default: the latest), kept ``time_retained`` (``'7 d'``) or forever.

        >>> t.create_tag("release-1", version=3)
        """
        self._call("create_tag", tag=name, snapshot=version, time_retained=time_retained)

    def delete_tag(self, name: str) -> None:
        """Deletes a tag; its snapshot's files go when nothing else holds them.

        >>> t.delete_tag("release-1")
        """
        self._call("delete_tag", tag=name)

    def rollback_to(self, version: Optional[int] = None, tag: Optional[str] = None,
                    timestamp: Optional[_sql.Timestamp] = None) -> None:
        """Makes a snapshot, a tag or the state at a point in time the table's latest state again.

        >>> t.rollback_to(tag="release-1")
        """
        given = [v for v in (version, tag, timestamp) if v is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of version, tag and timestamp")
        if timestamp is not None:
            self._call("rollback_to_timestamp", timestamp=self._millis(timestamp))
        else:
            self._call("rollback", snapshot=version, tag=tag)

    def create_branch(self, name: str, tag: Optional[str] = None) -> None:
        """Creates a branch, empty or from a tag; read it as ``t$branch_<name>``.

        >>> t.create_branch("experiment", tag="release-1")
        >>> spark.table("paimon.default.`orders$branch_experiment`").count()
        """
        self._call("create_branch", branch=name, tag=tag)

    def remove_orphan_files(self, older_than: Optional[_sql.Timestamp] = None, dry_run: bool = False) -> int:
        """Deletes files no snapshot, tag or branch uses that are older than ``older_than`` (default:
        a day); returns how many (that would be) deleted.

        >>> t.remove_orphan_files(older_than=datetime.now() - timedelta(days=1), dry_run=True)
        0
        """
        rows = self._call("remove_orphan_files", dry_run=dry_run,
                          older_than=_sql.timestamp(older_than) if older_than is not None else None)
        return int(rows[0][0])

    def add_columns(self, *columns: Union[str, StructField]) -> None:
        """Adds columns at the end, as DDL (``"note STRING COMMENT 'free text'"``) or StructFields.

        >>> t.add_columns("note STRING", StructField("score", DoubleType()))
        """
        ddl = [c if isinstance(c, str) else f"{_sql.identifier(c.name)} {c.dataType.simpleString()}" for c in columns]
        self._spark.sql(f"ALTER TABLE {self._ident()} ADD COLUMNS ({', '.join(ddl)})")

    def rename_column(self, old: str, new: str) -> None:
        """Renames a column (``a.b`` for a nested one); its data stays.

        >>> t.rename_column("status", "state")
        """
        self._spark.sql(f"ALTER TABLE {self._ident()} RENAME COLUMN {old} TO {_sql.identifier(new)}")

    def drop_column(self, name: str) -> None:
        """Drops a column (``a.b`` for a nested one); old snapshots still read it.

        >>> t.drop_column("note")
        """
        self._spark.sql(f"ALTER TABLE {self._ident()} DROP COLUMN {name}")

    def set_options(self, **options: object) -> None:
        """Sets table options; option names with dots or dashes go through ``**{...}``.

        >>> t.set_options(**{"snapshot.num-retained.max": 10})
        """
        pairs = ", ".join(f"{_sql.string(k)} = {_sql.string(str(v))}" for k, v in options.items())
        self._spark.sql(f"ALTER TABLE {self._ident()} SET TBLPROPERTIES ({pairs})")

    def unset_options(self, *keys: str) -> None:
        """Removes table options, so their defaults apply again.

        >>> t.unset_options("snapshot.num-retained.max")
        """
        self._spark.sql(f"ALTER TABLE {self._ident()} UNSET TBLPROPERTIES ({', '.join(map(_sql.string, keys))})")
