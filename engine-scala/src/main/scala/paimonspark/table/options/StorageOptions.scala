package paimonspark.table.options

import paimonspark.format.{DataFileFormat, StatsMode}
import paimonspark.format.files.DataFileCodecs
import paimonspark.table.options.OptionKind._

/** Paimon's options on what a table is and how it lays out its files, indexes, manifests and partitions. */
private[table] object StorageOptions extends OptionDeclarations {
  val IcebergStorage = "metadata.iceberg.storage"
  import Access.{Both => ReadWrite, ReadOnly, WriteOnly}
  import OptionScope.TableAndRead

  private val formats: (String, String) => Unit = (k, v) =>
    if (!DataFileFormat.Readable(v.trim.toLowerCase)) invalid(k, v, DataFileFormat.Readable.toSeq.sorted.mkString(" or "))

  /** Codecs one format or another writes; which the table's format writes is checked with all its options. */
  private val codecs: (String, String) => Unit = (k, v) => if (!DataFileCodecs.Known(v.trim.toLowerCase)) {
    invalid(k, v, s"one of ${DataFileCodecs.Known.toSeq.sorted.mkString(", ")}")
  }

  /** Each value of a `level:value` list checked as `check` checks one. */
  private def levelValues(check: (String, String) => Unit): (String, String) => Unit = (k, v) =>
    v.split(",").map(_.trim).filter(_.nonEmpty).foreach(entry => check(k, entry.split(":", 2).last))

  val All: Seq[PaimonOption] = Seq(
    // ---- what a table is, and how rows map to buckets ----
    implemented("type", enumOf("TableType", "table", "format-table", "materialized-table", "object-table",
      "lance-table", "iceberg-table"), "table", only("table")("only Paimon's own table layout is read and written"), ReadWrite),
    implemented("bucket", AnyInt, "-1", (k, v) => v.trim.toInt match {
      case n if n == 0 || n < -2 => invalid(k, v, "-1 (dynamic), -2 (postpone) or positive")
      case _ => ()
    }, ReadWrite),
    implemented("bucket-key", text),
    implemented("bucket-append-ordered", bool, "true"),
    implemented("bucket-function.type", enumOf("BucketFunctionType", "default", "mod", "hive"), "default"),
    implemented("primary-key", text),
    implemented("partition", text),
    implemented("path", text),
    implemented("branch", text, "main", scope = OptionScope(table = false, read = true, write = true)),
    refused("upsert-key", text, null, "INSERT on an append table does not upsert by key here", WriteOnly),
    refused("chain-table.enabled", bool, "false", "chain tables are not read or written", ReadWrite),
    refused("chain-table.chain-partition-keys", text, null, "chain tables are not read or written", ReadWrite),
    refused("scan.fallback-snapshot-branch", text, null, "chain tables are not read or written", ReadOnly),
    refused("scan.fallback-delta-branch", text, null, "chain tables are not read or written", ReadOnly),
    refused("scan.fallback-branch", text, null, "reads do not fall back to another branch", ReadOnly),
    refused("scan.primary-branch", text, null, "reads do not fall back to another branch", ReadOnly),
    refused("pk-clustering-override", bool, "false", "primary-key files sorted by other columns are not read", ReadWrite),
    refused("query-auth.enabled", bool, "false", "query authorization needs a REST catalog", ReadWrite),

    // ---- data files ----
    implemented("file.format", text, "parquet", formats),
    // One of paimon-format's `OrcOptions`: how TIMESTAMP_LTZ values were put into ORC files.
    implemented("orc.timestamp-ltz.legacy.type", bool, "true"),
    implemented("file.format.per.level", LevelMap, "", levelValues(formats)),
    implemented("file.compression", text, "zstd", codecs),
    implemented("file.compression.per.level", LevelMap, "", levelValues(codecs)),
    implemented("file.compression.zstd-level", IntIn(1, 22), "1"),
    implemented("data-file.prefix", text, "data-"),
    refused("data-file.path-directory", text, null, "data files are found under the table directory only", ReadWrite),
    refused("data-file.external-paths", text, null, "new data files are written under the table directory " +
      "(files another engine wrote elsewhere are read)", WriteOnly),
    refused("data-file.external-paths.strategy", enumOf("ExternalPathStrategy", "none", "specific-fs",
      "round-robin", "entropy-inject", "weight-robin"), "none", "new data files are written under the table directory",
      WriteOnly),
    refused("data-file.external-paths.specific-fs", text, null, "new data files are written under the table directory"),
    refused("data-file.external-paths.weights", text, null, "new data files are written under the table directory"),
    refused("data-file.thin-mode", bool, "false", "primary-key files without their key columns are not read", ReadWrite),
    implemented("changelog-file.prefix", text, "changelog-", (k, v) =>
      if (v.isEmpty || v.contains('/')) invalid(k, v, "a non-empty file name prefix")),
    implemented("changelog-file.format", text, null, formats),
    implemented("changelog-file.compression", text, null, codecs),
    refused("changelog-file.stats-mode", text, null, "changelog files keep the stats of 'metadata.stats-mode'"),
    refused("file.suffix.include.compression", bool, "false", "file names end in the format alone"),
    noEffect("file.block-size", memory, null, ResultsStay),
    implemented("parquet.enable.dictionary", IntegerReadAsBool),
    implemented("target-file-size", memory),
    noEffect("async-file-write", bool, "true", ResultsStay),
    noEffect("file-reader-async-threshold", memory, "10 mb", ResultsStay),
    refused("row-tracking.enabled", bool, "false", "rows are not given row ids", WriteOnly),
    refused("data-evolution.enabled", bool, "false", "files holding some of a row's columns are not merged", ReadWrite),
    refused("record-level.expire-time", time, null, "records do not expire", ReadWrite),
    refused("record-level.time-field", text, null, "records do not expire", ReadWrite),

    // ---- column types that need their own files ----
    noEffect("variant.shreddingSchema", text, null, Variant, aliases = Seq("parquet.variant.shreddingSchema")),
    noEffect("variant.inferShreddingSchema", bool, "false", Variant),
    noEffect("variant.shredding.maxSchemaWidth", AnyInt, "300", Variant),
    noEffect("variant.shredding.maxSchemaDepth", AnyInt, "50", Variant),
    noEffect("variant.shredding.minFieldCardinalityRatio", Fraction("Double"), "0.1", Variant),
    noEffect("variant.shredding.maxInferBufferRow", AnyInt, "4096", Variant),
    noEffect("blob.target-file-size", memory, null, Blob),
    noEffect("blob.split-by-file-size", bool, null, Blob),
    noEffect("blob-field", text, null, Blob),
    noEffect("blob-descriptor-field", text, null, Blob, aliases = Seq("blob.stored-descriptor-fields")),
    noEffect("blob-as-descriptor", bool, "false", Blob, TableAndRead),
    noEffect("blob-external-storage-path", text, null, Blob),
    noEffect("blob-external-storage-field", text, null, Blob),
    refused("vector.file.format", text, null, "vector columns in files of their own are not read", ReadWrite),
    refused("vector-field", text, null, "vector columns in files of their own are not read", ReadWrite),
    refused("vector.target-file-size", memory, null, "vector columns in files of their own are not read"),

    // ---- indexes ----
    implemented("deletion-vectors.enabled", bool, "false"),
    implemented("deletion-vectors.modifiable", bool, "false"),
    noEffect("deletion-vector.index-file.target-size", memory, "2 mb",
      "a compaction writes its bucket's vectors into one index file, whatever their size"),
    implemented("deletion-vectors.bitmap64", bool, "false"),
    noEffect("compaction.delete-ratio-threshold", Fraction("Double"), "0.2", "it applies to deletion vectors, refused on their own"),
    refused("index-file-in-data-file-dir", bool, "false", "index files are kept in the table's index/ directory", WriteOnly),
    noEffect("file-index.in-manifest-threshold", memory, "500 b", NoFileIndexes),
    noEffect("file-index.read.enabled", bool, "true", NoFileIndexes, TableAndRead),
    noEffect("global-index.external-path", text, null, Global),
    noEffect("global-index.column-update-action", enumOf("GlobalIndexColumnUpdateAction", "THROW_ERROR",
      "DROP_PARTITION_INDEX"), "THROW_ERROR", Global),
    noEffect("global-index.row-count-per-shard", LongValue, "100000", Global),
    noEffect("global-index.build.max-shard", AnyInt, "32", Global),
    noEffect("global-index.build.max-parallelism", AnyInt, "4096", Global),
    noEffect("global-index.enabled", bool, "true", Global),
    noEffect("global-index.thread-num", AnyInt, null, Global),

    // ---- manifests and statistics ----
    refused("manifest.format", text, "avro", "manifests are Avro files", ReadWrite),
    implemented("manifest.compression", text, "zstd", (k, v) =>
      if (!Set("zstd", "snappy", "deflate", "null", "none", "uncompressed")(v.trim.toLowerCase)) {
        invalid(k, v, "one of zstd, snappy, deflate, none")
      }),
    implemented("manifest.target-file-size", memory, "8 mb"),
    implemented("manifest.full-compaction-threshold-size", memory, "16 mb", positiveSize),
    implemented("manifest.merge-min-count", positive, "30"),
    noEffect("manifest.delete-file-drop-stats", bool, "false", "statistics kept on DELETE entries are never read"),
    implemented("metadata.stats-mode", text, "truncate(16)", (k, v) =>
      if (StatsMode.parse(v).isEmpty) invalid(k, v, "none, counts, full or truncate(N)")),
    refused("metadata.stats-mode.per.level", LevelMap, "", "every level keeps the stats of 'metadata.stats-mode'"),
    noEffect("metadata.stats-dense-store", bool, "true", "statistics are written for every column, which readers " +
      "decode either way"),
    refused("metadata.stats-keep-first-n-columns", AnyInt, "-1", "statistics are kept for every column"),
    // Of paimon-core's IcebergOptions: Iceberg metadata that Paimon's commits write beside each snapshot.
    implemented(IcebergStorage, enumOf("IcebergOptions.StorageType", "disabled", "table-location", "hadoop-catalog",
      "hive-catalog", "rest-catalog"), "disabled", only("disabled", "table-location", "hadoop-catalog", "hive-catalog")(
      "Iceberg metadata is written beside the table, in a Hadoop catalog's layout or registered in a Hive " +
      "Metastore; registering it in an Iceberg REST catalog is not built yet"), ReadWrite),
    implemented("metadata.iceberg.storage-location", enumOf("IcebergOptions.StorageLocation", "table-location",
      "catalog-location")),
    implemented("metadata.iceberg.format-version", IntIn(2, 3), "2"),
    implemented("metadata.iceberg.manifest-compression", text, "snappy", (k, v) =>
      paimonspark.format.iceberg.IcebergManifests.codec(v)),
    implemented("metadata.iceberg.manifest-legacy-version", bool, "false"),
    implemented("metadata.iceberg.compaction.min.file-num", positive, "10"),
    implemented("metadata.iceberg.compaction.max.file-num", positive, "50"),
    implemented("metadata.iceberg.delete-after-commit.enabled", bool, "true"),
    implemented("metadata.iceberg.previous-versions-max", IntIn(0), "0"),
    // The Hive Metastore's committer (`hive-catalog`) reads these; the REST catalog's is refused with its storage.
    implemented("metadata.iceberg.uri", text),
    implemented("metadata.iceberg.hive-conf-dir", text),
    noEffect("metadata.iceberg.hadoop-conf-dir", text, null, "the metastore client takes Hadoop's settings from the " +
      "session, and hive-site.xml from metadata.iceberg.hive-conf-dir"),
    implemented("metadata.iceberg.hive-client-class", text, "org.apache.hadoop.hive.metastore.HiveMetaStoreClient"),
    implemented("metadata.iceberg.database", text),
    implemented("metadata.iceberg.table", text),
    implemented("metadata.iceberg.glue.skip-archive", bool, "false"),
    implemented("metadata.iceberg.hive-skip-update-stats", bool, "false"),

    // ---- partitions ----
    implemented("partition.default-name", text, "__DEFAULT_PARTITION__", (k, v) =>
      if (v.isEmpty) invalid(k, v, "a non-empty name")),
    implemented("partition.legacy-name", bool, "true", only("true")("partition directories use the legacy names"),
      ReadWrite),
    implemented("partition.expiration-strategy", text, "values-time", (k, v) =>
      if (!Set("values-time", "update-time")(v.trim.toLowerCase)) invalid(k, v, "values-time or update-time")),
    implemented("partition.expiration-time", time),
    implemented("partition.expiration-check-interval", time, "1 h"),
    implemented("partition.expiration-max-num", positive, "100"),
    noEffect("partition.expiration-batch-size", AnyInt, null, "the partitions of one expiry are dropped in one commit, " +
      "which holds the same as several"),
    implemented("partition.timestamp-formatter", text, null, (k, v) =>
      if (scala.util.Try(java.time.format.DateTimeFormatter.ofPattern(v)).isFailure) invalid(k, v, "a date-time pattern")),
    implemented("partition.timestamp-pattern", text),
    refused("partition.timestamp-format.strict", bool, "false", "writes do not check partition values against " +
      "partition.timestamp-formatter"),
    implemented("end-input.check-partition-expire", bool, "false"),
    implemented("partition.end-input-to-done", bool, "false"),
    implemented("partition.mark-done-action", text, "success-file", (k, v) =>
      v.split(",").map(_.trim.toLowerCase).filterNot(Set("success-file", "done-partition", "mark-event")).foreach(a =>
        unsupported(k, v, s"'$a' needs a service or a class of yours; this engine does 'success-file', and " +
          "'done-partition' and 'mark-event' in a metastore catalog"))),
    refused("partition.mark-done-action.custom.class", text, null, "partitions are not marked done"),
    refused("partition.mark-done-action.http.url", text, null, "partitions are not marked done"),
    refused("partition.mark-done-action.http.params", text, null, "partitions are not marked done"),
    noEffect("partition.idle-time-to-report-statistic", time, "0 ms", FlinkOnly),
    noEffect("partition.sink-strategy", enumOf("PartitionSinkStrategy", "NONE", "HASH"), "NONE",
      "Spark decides how rows reach write tasks"),
    // Read by a metastore catalog, which registers the table's partitions as they receive files.
    implemented("metastore.partitioned-table", bool, "false"),
    refused("metastore.tag-to-partition", text, null, "tags are not registered in a metastore"),
    refused("metastore.tag-to-partition.preview", enumOf("TagCreationMode", "none", "process-time", "watermark",
      "batch"), "none", "tags are not registered in a metastore"))
}
