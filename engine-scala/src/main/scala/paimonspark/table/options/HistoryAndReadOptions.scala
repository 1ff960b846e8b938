package paimonspark.table.options

import paimonspark.table.options.OptionKind._


/** Paimon's options on snapshots, tags, consumers and reads, and those of its Spark connector. */
private[table] object HistoryAndReadOptions extends OptionDeclarations {
  import Access.ReadOnly
  import OptionScope.{Read, TableAndRead, TableAndWrite}

  private val positiveCount: (String, String) => Unit = (k, v) => if (v.trim.toLong <= 0) invalid(k, v, "positive")

  val All: Seq[PaimonOption] = Seq(
    // ---- snapshots, changelogs, tags and consumers ----
    implemented("snapshot.num-retained.min", positive, "10"),
    implemented("snapshot.num-retained.max", positive, "2147483647"),
    implemented("snapshot.time-retained", time, "1 h"),
    implemented("snapshot.expire.limit", positive, "50"),
    noEffect("snapshot.expire.execution-mode", enumOf("ExpireExecutionMode", "sync", "async"), "sync",
      "expiry after a commit runs before the write returns; running it later would expire the same snapshots"),
    implemented("snapshot.clean-empty-directories", bool, "false", aliases = Seq("snapshot.expire.clean-empty-directories")),
    noEffect("snapshot.watermark-idle-timeout", time, null, FlinkOnly),
    implemented("changelog.num-retained.min", positive),
    implemented("changelog.num-retained.max", positive),
    implemented("changelog.time-retained", time),
    implemented("tag.automatic-creation", enumOf("TagCreationMode", "none", "process-time", "watermark", "batch"),
      "none", only("none", "process-time", "watermark")("use process-time or watermark")),
    refused("tag.create-success-file", bool, "false", "tags get no _SUCCESS file"),
    implemented("tag.creation-period", enumOf("TagCreationPeriod", "daily", "hourly", "two-hours"), "daily"),
    implemented("tag.creation-delay", time, "0 ms"),
    implemented("tag.period-formatter", enumOf("TagPeriodFormatter", "with_dashes", "without_dashes",
      "without_dashes_and_spaces"), "with_dashes"),
    refused("tag.creation-period-duration", time, null, "tag periods are daily, hourly or two-hours"),
    implemented("tag.num-retained-max", positive),
    implemented("tag.default-time-retained", time),
    implemented("tag.time-expire-enabled", bool, "true"),
    refused("tag.automatic-completion", bool, "false", "missed periods are not tagged afterwards"),
    refused("tag.batch.customized-name", text, null, "tag.automatic-creation = batch is not supported"),
    implemented("sink.watermark-time-zone", text, "UTC", (k, v) => zone(k, v)),
    implemented("sink.process-time-zone", text, null, (k, v) => zone(k, v)),
    implemented("consumer.expiration-time", time),
    implemented("consumer-id", text, scope = Read),
    noEffect("consumer.mode", enumOf("ConsumerMode", "exactly-once", "at-least-once"), "exactly-once",
      "streams here commit their progress with Spark's checkpoints, exactly once", TableAndRead),
    refused("consumer.ignore-progress", bool, "false", "a stream with a consumer-id resumes where it was", scope = Read),
    refused("consumer.changelog-only", bool, "false", "consumers keep snapshots too", scope = TableAndRead),

    // ---- reading ----
    implemented("scan.mode", enumOf("StartupMode", "default", "latest-full", "full", "latest", "compacted-full",
      "from-timestamp", "from-creation-timestamp", "from-file-creation-time", "from-snapshot", "from-snapshot-full",
      "incremental"), "default", only("default", "latest-full", "full", "latest", "compacted-full", "from-timestamp",
      "from-snapshot", "from-snapshot-full", "incremental")("files are not selected by their creation time"),
      scope = Read, aliases = Seq("log.scan")),
    implemented("scan.timestamp", text, scope = Read),
    implemented("scan.timestamp-millis", LongValue, scope = Read, aliases = Seq("log.scan.timestamp-millis")),
    implemented("scan.snapshot-id", LongValue, scope = Read),
    implemented("scan.tag-name", text, scope = Read),
    implemented("scan.version", text, scope = Read),
    refused("scan.watermark", LongValue, null, "reads do not start at a watermark", scope = Read),
    refused("scan.file-creation-time-millis", LongValue, null, "files are not selected by their creation time", scope = Read),
    refused("scan.creation-time-millis", LongValue, null, "files are not selected by their creation time", scope = Read),
    refused("scan.bounded.watermark", LongValue, null, "streams do not end at a watermark", scope = Read),
    implemented("incremental-between", text, scope = Read),
    implemented("incremental-between-timestamp", text, scope = Read),
    implemented("incremental-between-scan-mode", enumOf("IncrementalBetweenScanMode", "auto", "delta", "changelog",
      "diff"), "auto", scope = Read),
    implemented("incremental-between-tag-to-snapshot", bool, "false", scope = Read),
    implemented("incremental-to-auto-tag", text, scope = Read),
    implemented("streaming-read-overwrite", bool, "false", scope = Read),
    refused("streaming-read-append-overwrite", bool, "false", "streams of append tables skip overwrites", scope = Read),
    refused("stream-scan-mode", enumOf("StreamScanMode", "none", "compact-bucket-table", "file-monitor"), "none",
      "it selects internal scans of Paimon's Flink jobs", ReadOnly, TableAndRead),
    refused("batch-scan-mode", enumOf("BatchScanMode", "none", "compact"), "none",
      "it selects internal scans of Paimon's Flink jobs", ReadOnly, TableAndRead),
    implemented("source.split.open-file-cost", memory, "4 mb", scope = TableAndRead),
    implemented("source.split.target-size", memory, "128 mb", positiveSize, scope = TableAndRead),
    noEffect("scan.max-splits-per-task", AnyInt, "10", "Spark plans read tasks itself", TableAndRead),
    noEffect("scan.manifest.parallelism", AnyInt, null, ResultsStay, TableAndRead),
    noEffect("scan.plan-sort-partition", bool, "false", "Spark plans read tasks itself", TableAndRead),
    refused("scan.ignore-corrupt-files", bool, "false", "a corrupt file fails the read", scope = TableAndRead),
    refused("scan.ignore-lost-files", bool, "false", "a missing file fails the read", scope = TableAndRead),
    noEffect("read.batch-size", AnyInt, "1024", "Parquet batches here are Spark's columnar batches", TableAndRead),
    noEffect("continuous.discovery-interval", time, "10 s", "a stream looks for snapshots when Spark triggers it",
      TableAndRead),
    noEffect("streaming.read.snapshot.delay", time, null, "it delays when snapshots are read, not which", TableAndRead),
    noEffect("auto-create", bool, "false", "tables are created by CREATE TABLE"),
    refused("dynamic-partition-overwrite", bool, "true", "INSERT OVERWRITE follows Spark's " +
      "spark.sql.sources.partitionOverwriteMode", scope = TableAndWrite, acceptsDefault = false),

    // ---- schema changes ----
    implemented("alter-column-null-to-not-null.disabled", bool, "true"),
    implemented("disable-explicit-type-casting", bool, "false"),
    refused("add-column-before-partition", bool, "false", "added columns go last or where AFTER says"),

    // ---- other engines' objects ----
    noEffect("format-table.implementation", enumOf("FormatTableImplementation", "paimon", "engine"), "paimon",
      "it applies to format tables, refused by 'type'"),
    noEffect("format-table.partition-path-only-value", bool, "false", "it applies to format tables, refused by 'type'"),
    noEffect("format-table.file.compression", text, null, "it applies to format tables, refused by 'type'"),
    noEffect("format-table.commit-hive-sync-url", text, null, "it applies to format tables, refused by 'type'"),
    noEffect("materialized-table.definition-query", text, null, "it applies to materialized tables, refused by 'type'"),
    noEffect("materialized-table.interval-freshness", text, null, "it applies to materialized tables, refused by 'type'"),
    noEffect("materialized-table.interval-freshness.time-unit", enumOf("MaterializedTableIntervalFreshnessTimeUnit",
      "SECOND", "MINUTE", "HOUR", "DAY"), null, "it applies to materialized tables, refused by 'type'"),
    noEffect("materialized-table.logical-refresh-mode", enumOf("MaterializedTableRefreshMode", "CONTINUOUS", "FULL",
      "AUTOMATIC"), null, "it applies to materialized tables, refused by 'type'"),
    noEffect("materialized-table.refresh-mode", enumOf("MaterializedTableRefreshMode", "CONTINUOUS", "FULL",
      "AUTOMATIC"), null, "it applies to materialized tables, refused by 'type'"),
    noEffect("materialized-table.refresh-status", enumOf("MaterializedTableRefreshStatus", "INITIALIZING",
      "ACTIVATED", "SUSPENDED"), null, "it applies to materialized tables, refused by 'type'"),
    noEffect("materialized-table.refresh-handler-description", text, null,
      "it applies to materialized tables, refused by 'type'"),
    noEffect("materialized-table.refresh-handler-bytes", text, null, "it applies to materialized tables, refused by 'type'"),

    // ---- Paimon's Spark connector, and catalogs ----
    implemented("write.merge-schema", bool, "false", scope = TableAndWrite),
    implemented("write.merge-schema.explicit-cast", bool, "false", scope = TableAndWrite),
    implemented("read.changelog", bool, "false", scope = TableAndRead),
    implemented("read.stream.maxFilesPerTrigger", LongValue, check = positiveCount, scope = Read),
    implemented("read.stream.maxBytesPerTrigger", LongValue, check = positiveCount, scope = Read),
    implemented("read.stream.maxRowsPerTrigger", LongValue, check = positiveCount, scope = Read),
    implemented("read.stream.minRowsPerTrigger", LongValue, check = positiveCount, scope = Read),
    implemented("read.stream.maxTriggerDelayMs", LongValue, check = positiveCount, scope = Read),
    implemented("owner", text))
}
