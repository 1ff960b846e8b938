package paimonspark.table.options

import paimonspark.table.options.OptionKind._

/** Paimon's options on merging keys, writing, compaction, changelogs and commits. */
private[table] object ProcessingOptions extends OptionDeclarations {
  import Access.{ReadOnly, WriteOnly}

  val All: Seq[PaimonOption] = Seq(
    // ---- primary keys and merging ----
    implemented("merge-engine", enumOf("MergeEngine", "deduplicate", "partial-update", "aggregation", "first-row"),
      "deduplicate"),
    implemented("ignore-delete", bool, "false",
      aliases = Seq("first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete")),
    refused("ignore-update-before", bool, "false", "-U rows are merged like other retractions", WriteOnly),
    implemented("sequence.field", text),
    implemented("sequence.field.sort-order", enumOf("SortOrder", "ascending", "descending"), "ascending"),
    implemented("aggregation.remove-record-on-delete", bool, "false"),
    implemented("partial-update.remove-record-on-delete", bool, "false"),
    implemented("partial-update.remove-record-on-sequence-group", text),
    implemented("rowkind.field", text),
    implemented("fields.default-aggregate-function", text),
    refused("table-read.sequence-number.enabled", bool, "false", "reads give no _SEQUENCE_NUMBER column", ReadOnly),
    refused("key-value.sequence_number.enabled", bool, "false", "$audit_log gives no _SEQUENCE_NUMBER column", ReadOnly),
    implemented("dynamic-bucket.target-row-num", LongValue, "2000000", (k, v) =>
      if (v.trim.toLong <= 0) invalid(k, v, "a positive number")),
    implemented("dynamic-bucket.initial-buckets", IntIn(1, Short.MaxValue)),
    implemented("dynamic-bucket.max-buckets", AnyInt, "-1", (k, v) =>
      if (v.trim.toInt != -1 && v.trim.toInt <= 0) invalid(k, v, "-1 (unlimited) or positive")),
    implemented("dynamic-bucket.assigner-parallelism", IntIn(1, Short.MaxValue)),
    implemented("cross-partition-upsert.index-ttl", time),
    noEffect("cross-partition-upsert.bootstrap-parallelism", AnyInt, "10",
      "the bootstrap reads the table's keys in Spark tasks, packed by size as any scan"),
    implemented("postpone.batch-write-fixed-bucket", bool, "true"),
    implemented("postpone.batch-write-fixed-bucket.max-parallelism", AnyInt, "2048", (k, v) =>
      if (v.trim.toInt <= 0) invalid(k, v, "a positive number")),
    implemented("postpone.default-bucket-num", AnyInt, "1", (k, v) =>
      if (v.trim.toInt <= 0) invalid(k, v, "a positive number")),
    noEffect("overwrite-upgrade", bool, "true", "upgrading overwritten files to a higher level moves files, not rows"),

    // ---- writing, sorting and spilling ----
    implemented("write-only", bool, "false", aliases = Seq("write.compaction-skip")),
    implemented("write-buffer-size", memory, "256 mb"),
    noEffect("write-buffer-spillable", bool, "true", ResultsStay),
    noEffect("write-buffer-spill.max-disk-size", memory, "9223372036854775807 b", ResultsStay),
    noEffect("write-buffer-for-append", bool, "false", ResultsStay),
    noEffect("write-max-writers-to-spill", AnyInt, "10", ResultsStay),
    noEffect("write.batch-size", AnyInt, "1024", ResultsStay, aliases = Seq("orc.write.batch-size")),
    noEffect("write.batch-memory", memory, "128 mb", ResultsStay),
    noEffect("local-sort.max-num-file-handles", AnyInt, "128", ResultsStay),
    noEffect("sort-engine", enumOf("SortEngine", "min-heap", "loser-tree"), "loser-tree", "both give the same order"),
    noEffect("sort-spill-threshold", AnyInt, null, ResultsStay),
    noEffect("sort-spill-buffer-size", memory, "64 mb", ResultsStay),
    noEffect("spill-compression", text, "zstd", ResultsStay),
    noEffect("spill-compression.zstd-level", AnyInt, "1", ResultsStay),
    noEffect("page-size", memory, "64 kb", ResultsStay),
    noEffect("cache-page-size", memory, "64 kb", ResultsStay),
    noEffect("local-merge-buffer-size", memory, null, "merging before the shuffle changes how much is shuffled, " +
      "not what is written"),
    noEffect("file-operation.thread-num", AnyInt, null, ResultsStay, aliases = Seq("delete-file.thread-num")),
    noEffect("zorder.var-length-contribution", AnyInt, "8", "sort compaction is not implemented"),
    noEffect("sort-compaction.range-strategy", enumOf("RangeStrategy", "SIZE", "QUANTITY"), "SIZE",
      "sort compaction is not implemented"),
    noEffect("sort-compaction.local-sample.magnification", AnyInt, "1000", "sort compaction is not implemented"),
    refused("clustering.columns", text, null, Clustering, aliases = Seq("sink.clustering.by-columns")),
    noEffect("clustering.strategy", text, "auto", Clustering, aliases = Seq("sink.clustering.strategy")),
    refused("clustering.incremental", bool, "false", Clustering),
    noEffect("clustering.history-partition.limit", AnyInt, "5", Clustering),
    noEffect("clustering.history-partition.idle-to-full-sort", time, null, Clustering),
    noEffect("clustering.incremental.optimize-write", bool, "false", Clustering),
    noEffect("clustering.incremental.mode", enumOf("ClusteringIncrementalMode", "global-sort", "local-sort"),
      "global-sort", Clustering),

    // ---- compaction ----
    implemented("num-sorted-run.compaction-trigger", positive, "5"),
    implemented("num-sorted-run.stop-trigger", positive),
    implemented("num-levels", IntIn(2, 100)),
    implemented("compaction.max-size-amplification-percent", IntIn(0), "200"),
    implemented("compaction.size-ratio", IntIn(0, 100), "1"),
    implemented("compaction.min.file-num", positive, "5"),
    // paimon-spark's own: Paimon 1.4 fixes the ratio at 0.7.
    implemented("compaction.small-file-ratio", Fraction("Double"), "0.7", (k, v) =>
      if (!(v.trim.toDouble > 0 && v.trim.toDouble <= 1)) invalid(k, v, "a number in (0, 1]")),
    noEffect("compaction.file-num-limit", AnyInt, "100000", ResultsStay),
    noEffect("compaction.force-up-level-0", bool, "false", "it changes which files a compaction picks, not the rows"),
    noEffect("compaction.offpeak.start.hour", AnyInt, "-1", "it changes when compactions run, not the rows"),
    noEffect("compaction.offpeak.end.hour", AnyInt, "-1", "it changes when compactions run, not the rows"),
    noEffect("compaction.offpeak-ratio", AnyInt, "0", "it changes when compactions run, not the rows"),
    refused("compaction.optimization-interval", time, null, "full compactions are not scheduled by time"),
    refused("compaction.total-size-threshold", memory, null, "full compactions are not triggered by size"),
    refused("compaction.incremental-size-threshold", memory, null, "full compactions are not triggered by size"),
    implemented("compaction.force-rewrite-all-files", bool, "false"),
    implemented("full-compaction.delta-commits", positive),
    implemented("lookup-compact", enumOf("LookupCompactMode", "RADICAL", "GENTLE"), "RADICAL"),
    implemented("lookup-compact.max-interval", AnyInt),
    implemented("force-lookup", bool, "false"),
    noEffect("commit.force-compact", bool, "false", "writes here always wait for the compaction they start"),

    // ---- changelog ----
    implemented("changelog-producer", enumOf("ChangelogProducer", "none", "input", "full-compaction", "lookup"), "none"),
    implemented("changelog-producer.row-deduplicate", bool, "false"),
    implemented("changelog-producer.row-deduplicate-ignore-fields", text),
    implemented("lookup-wait", bool, "true", aliases = Seq("changelog-producer.lookup-wait")),
    implemented("delete.force-produce-changelog", bool, "false"),
    noEffect("lookup.hash-load-factor", Fraction("Float"), "0.75", Lookup),
    noEffect("lookup.cache-file-retention", time, "1 h", Lookup),
    noEffect("lookup.cache-max-disk-size", memory, "9223372036854775807 b", Lookup),
    noEffect("lookup.cache-spill-compression", text, "zstd", Lookup),
    noEffect("lookup.cache-max-memory-size", memory, "256 mb", Lookup),
    noEffect("lookup.cache.high-priority-pool-ratio", Fraction("Double"), "0.25", Lookup),
    noEffect("lookup.cache.bloom.filter.enabled", bool, "true", Lookup),
    noEffect("lookup.cache.bloom.filter.fpp", Fraction("Double"), "0.05", Lookup),
    noEffect("lookup.remote-file.enabled", bool, "false", Lookup),
    noEffect("lookup.remote-file.level-threshold", AnyInt, "-2147483648", Lookup),
    noEffect("lookup.merge-buffer-size", memory, "8 mb", Lookup),
    noEffect("lookup.merge-records-threshold", AnyInt, "1024", Lookup),

    // ---- commits ----
    implemented("commit.max-retries", IntIn(0, 1000), "10"),
    // This engine's own: Paimon commits by rename, which object stores do not make atomic.
    implemented("commit.object-store.single-writer", bool, "false"),
    noEffect("commit.timeout", time, null, "commits retry up to 'commit.max-retries' times; how long changes no result"),
    noEffect("commit.min-retry-wait", time, "10 ms", "waiting between retries changes no result"),
    noEffect("commit.max-retry-wait", time, "10 s", "waiting between retries changes no result"),
    refused("commit.force-create-snapshot", bool, "false", "a commit that changes nothing creates no snapshot"),
    noEffect("commit.user-prefix", text, null, "commit users here are random, which Paimon's own are too"),
    refused("commit.callbacks", text, "", "commit callbacks (Java classes) are not called", WriteOnly),
    refused("tag.callbacks", text, "", "tag callbacks (Java classes) are not called", WriteOnly),
    refused("commit.strict-mode.last-safe-snapshot", LongValue, null, "commits check conflicts by their own base"),
    refused("commit.discard-duplicate-files", bool, "false", "committing a file twice fails instead"),
    refused("snapshot.ignore-empty-commit", bool, null, "a commit that changes nothing creates no snapshot"),
    noEffect("visibility-callback.enabled", bool, "false", FlinkOnly),
    noEffect("visibility-callback.timeout", time, "30 min", FlinkOnly),
    noEffect("visibility-callback.check-interval", time, "10 s", FlinkOnly))
}
