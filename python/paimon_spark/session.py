"""Session set-up: the engine jar on the classpath and the Paimon catalogs registered."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional

from pyspark.sql import SparkSession

from paimon_spark import errors
from paimon_spark._conf import appended, warehouse_uri
from paimon_spark.jar_sets import AZURE, GCS, JDBC, JDBC_PACKAGES, S3, S3_EXCLUDES, S3_PACKAGES

_JAR_NAME = "paimon-spark.jar"
_EXTENSIONS = "paimonspark.spark.extensions.PaimonSparkSessionExtensions"

def engine_jar() -> str:
    """The path of the engine jar shipped inside this package.

    >>> engine_jar()
    '/.../site-packages/paimon_spark/jars/paimon-spark.jar'
    """
    jar = Path(__file__).resolve().parent / "jars" / _JAR_NAME
    if not jar.is_file():
        raise errors.PaimonError(
            f"the paimon-spark engine jar is missing at {jar}; reinstall the package (or run `make jar`)"
        )
    return str(jar)


# What gcs-connector 3.1.3 needs on Spark's Hadoop 3.5.0, whose core-default.xml defines fs.gs.* sizes with
# suffixes ("64m") for Hadoop's own GCS module, which Google's connector cannot parse; and Parquet's vectored
# reads off, which call a Hadoop method the connector was built against in another signature.
GCS_SETTINGS = {
    "spark.hadoop.fs.gs.impl": "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem",
    "spark.hadoop.fs.AbstractFileSystem.gs.impl": "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFS",
    "spark.hadoop.fs.gs.block.size": "67108864",
    "spark.hadoop.fs.gs.rewrite.max.chunk.size": "536870912",
    "spark.hadoop.fs.gs.outputstream.buffer.size": "8388608",
    "spark.hadoop.fs.gs.inputstream.inplace.seek.limit": "8388608",
    "spark.hadoop.fs.gs.inputstream.min.range.request.size": "2097152",
    "spark.hadoop.parquet.hadoop.vectored.io.enabled": "false",
}
# What makes ABFS's creates exclusive, on which commits rest (a Blob-endpoint account, without the
# create-idempotency check that turns a create into check-then-put), and its read metrics off: ABFS 3.5.0
# updates them without a lock, and concurrent reads then fail.
AZURE_SETTINGS = {
    "spark.hadoop.fs.azure.account.hns.enabled": "false",
    "spark.hadoop.fs.azure.fns.account.service.type": "BLOB",
    "spark.hadoop.fs.azure.enable.create.blob.idempotency": "false",
    "spark.hadoop.fs.azure.metrics.collection.enabled": "false",
}


def with_packages(builder: SparkSession.Builder, packages: List[str], s3: bool, jdbc: bool = False,
                  gcs: bool = False, azure: bool = False) -> SparkSession.Builder:
    """``builder`` with Maven ``packages`` added to ``spark.jars.packages``, and with ``s3``, what S3A
    needs: the jars of :data:`S3_PACKAGES` without :data:`S3_EXCLUDES` in ``spark.jars`` (resolved
    once per machine, :mod:`paimon_spark.jar_sets`, never by the session's own Ivy) and ``s3://``
    mapped to S3A; with ``jdbc``, the JDBC catalog's drivers (:data:`JDBC_PACKAGES`), resolved the same way;
    with ``gcs`` and ``azure``, their connectors' jars (:data:`paimon_spark.jar_sets.GCS`,
    :data:`paimon_spark.jar_sets.AZURE`) and :data:`GCS_SETTINGS` and :data:`AZURE_SETTINGS`, each
    unless the builder sets it already."""
    for wanted, jars, settings in ((gcs, GCS, GCS_SETTINGS), (azure, AZURE, AZURE_SETTINGS)):
        if wanted:
            builder = builder.config("spark.jars", appended(builder, "spark.jars", jars.fetch()))
            own = getattr(builder, "_options", {})
            for key, value in settings.items():
                if key not in own:
                    builder = builder.config(key, value)
    if jdbc:
        builder = builder.config("spark.jars", appended(builder, "spark.jars", JDBC.fetch()))
    if packages:
        builder = builder.config("spark.jars.packages", appended(builder, "spark.jars.packages", packages))
    if s3:
        builder = builder.config("spark.jars", appended(builder, "spark.jars", S3.fetch()))
        # Spark's own paths (streaming checkpoints) on s3:// too, as the engine maps them.
        builder = builder.config("spark.hadoop.fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem")
    return builder


def configure_spark_with_paimon(
    builder: SparkSession.Builder,
    warehouse: Optional[str] = None,
    catalog: str = "paimon",
    extra_packages: Optional[List[str]] = None,
    s3: bool = False,
    metastore_uri: Optional[str] = None,
    catalog_options: Optional[Dict[str, str]] = None,
    gcs: bool = False,
    azure: bool = False,
) -> SparkSession.Builder:
    """Return ``builder`` set up for Paimon tables.

    It puts the engine jar on the driver and executor classpath, registers a Paimon catalog
    named ``catalog`` over ``warehouse`` (default: ``./warehouse``; a location with a scheme such as
    ``s3a://bucket/wh`` is kept as given, a plain path made absolute), replaces ``spark_catalog``
    so that ``CREATE TABLE t (...) USING paimon`` works beside ordinary Spark tables, and registers
    ``paimon_path``, whose table names are paths (``paimon_path.`/data/t$snapshots```).
    ``extra_packages`` are Maven coordinates (``group:artifact:version``) Spark resolves and adds
    to ``spark.jars.packages``. ``s3=True`` adds what ``s3a://`` and ``s3://`` warehouses need
    (:data:`S3_PACKAGES` without :data:`S3_EXCLUDES`, resolved from Maven Central once per machine
    into ``~/.cache/paimon-spark/jars`` or ``$PAIMON_SPARK_JARS_DIR``, by one process at a time, and
    loaded from there; a failed resolution raises :class:`paimon_spark.DependencyResolutionError`
    before any session starts); endpoint and
    credentials come from ``spark.hadoop.fs.s3a.*`` settings or the catalog options ``s3.endpoint``,
    ``s3.access-key``, ``s3.secret-key`` and ``s3.path-style-access``. ``gcs=True`` and ``azure=True`` do the
    same for ``gs://`` and ``abfs://`` (``abfss://``) warehouses: Google's GCS connector and Hadoop's ABFS,
    resolved once per machine, with :data:`GCS_SETTINGS` and :data:`AZURE_SETTINGS` (ABFS's settings without
    which its creates, and so commits, are not exclusive); credentials are the connectors' own
    ``spark.hadoop.fs.gs.*`` and ``spark.hadoop.fs.azure.*`` settings (docs/storage.md). These settings are extended,
    never replaced: jars and packages the builder, spark-submit or spark-defaults.conf already name
    stay. ``metastore_uri`` (``thrift://host:9083``) makes both catalogs Paimon's Hive catalog over
    that Hive Metastore (``metastore=hive``), so that tables are registered where Flink, Trino and
    Hive find them. ``catalog_options`` are Paimon catalog options for both catalogs, such as
    ``{"lock.enabled": "true"}``; with ``{"metastore": "rest", "uri": "http://host:port", "token.provider": "bear",
    "token": ...}`` both are Paimon's REST catalog over that server, and ``warehouse`` is the catalog's name
    there. With ``{"metastore": "jdbc", "uri": "jdbc:sqlite:/path/catalog.db"}`` (or ``jdbc:postgresql://...`` with
    ``jdbc.user`` and ``jdbc.password``) both are Paimon's JDBC catalog, its tables under ``warehouse``, and the
    session loads the SQLite and PostgreSQL drivers (:data:`JDBC_PACKAGES`, resolved once per machine). Errors
    raised by the engine become :class:`paimon_spark.PaimonError` subclasses.

    >>> spark = configure_spark_with_paimon(SparkSession.builder.master("local[2]")).getOrCreate()
    >>> spark.sql("CREATE TABLE paimon.default.t (id INT, name STRING)")
    """
    if not catalog or not catalog.isidentifier():
        raise ValueError(f"catalog name {catalog!r} is not a valid identifier")
    options = dict(catalog_options or {})
    if options.get("metastore", "").strip().lower() == "rest":
        # A REST catalog's warehouse is the catalog's name on its server, not a location.
        name = warehouse if warehouse is not None else options.get("warehouse")
        if not name:
            raise ValueError("a REST catalog (catalog_options metastore=rest) needs warehouse: the catalog's name "
                             "on the server")
        options["warehouse"] = name
    else:
        options["warehouse"] = warehouse_uri(warehouse if warehouse is not None else "warehouse")
    jar = engine_jar()
    errors.install_exception_translation()
    # Spark takes one list of extensions: keep any the builder already has.
    extensions = [e for e in getattr(builder, "_options", {}).get("spark.sql.extensions", "").split(",") if e.strip()]
    if _EXTENSIONS not in extensions:
        extensions.append(_EXTENSIONS)
    if metastore_uri is not None:
        if not metastore_uri.startswith("thrift://"):
            raise ValueError(f"metastore_uri {metastore_uri!r} is not a thrift://host:port address")
        options.update({"metastore": "hive", "uri": metastore_uri})
    builder = (
        with_packages(builder, extra_packages or [], s3, jdbc=options.get("metastore", "").strip().lower() == "jdbc",
                      gcs=gcs, azure=azure)
        .config("spark.jars", appended(builder, "spark.jars", [jar]))
        .config("spark.sql.extensions", ",".join(extensions))
        .config(f"spark.sql.catalog.{catalog}", "paimonspark.spark.PaimonCatalog")
        .config("spark.sql.catalog.spark_catalog", "paimonspark.spark.PaimonSessionCatalog")
        .config("spark.sql.catalog.paimon_path", "paimonspark.spark.PaimonPathCatalog")
    )
    for key, value in options.items():
        builder = builder.config(f"spark.sql.catalog.{catalog}.{key}", value).config(
            f"spark.sql.catalog.spark_catalog.{key}", value
        )
    return builder
