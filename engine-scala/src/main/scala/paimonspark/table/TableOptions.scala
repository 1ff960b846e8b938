package paimonspark.table

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.{ParquetDataFile, PartitionPath, StatsMode}
import paimonspark.lsm.UniversalCompaction

/**
 * Typed access to a table's options (the `options` of its schema) with Paimon's defaults, and the
 * validation every CREATE and ALTER goes through before anything is written.
 */
final case class TableOptions(raw: Map[String, String]) {
  import TableOptions._

  private def get(key: String): Option[String] = raw.get(key)

  def bucket: Int = get(Bucket).map(_.trim.toInt).getOrElse(-1)
  def fileFormat: String = get(FileFormat).getOrElse("parquet").toLowerCase
  def fileCompression: String = get(FileCompression).getOrElse("zstd").toLowerCase
  def zstdLevel: Int = get(ZstdLevel).map(_.trim.toInt).getOrElse(1)
  /** Paimon's default differs by table kind: 128 mb with a primary key, 256 mb without. */
  def targetFileSize(primaryKey: Boolean): Long =
    get(TargetFileSize).map(MemorySize.parse(TargetFileSize, _)).getOrElse(if (primaryKey) 128L << 20 else 256L << 20)
  /** Files below this size are small: compaction rewrites them rather than leaving or moving them as they are. */
  def compactionFileSize(primaryKey: Boolean): Long = (targetFileSize(primaryKey) * compactionSmallFileRatio).toLong
  def manifestTargetFileSize: Long =
    get(ManifestTargetFileSize).map(MemorySize.parse(ManifestTargetFileSize, _)).getOrElse(8L << 20)
  def manifestMergeMinCount: Int = get(ManifestMergeMinCount).map(_.trim.toInt).getOrElse(30)
  def manifestCompression: String = get(ManifestCompression).getOrElse("zstd")
  def partitionDefaultName: String = get(PartitionDefaultName).getOrElse(PartitionPath.DefaultPartitionName)
  def statsMode: StatsMode = get(StatsModeKey).flatMap(StatsMode.parse).getOrElse(StatsMode.Truncate(16))
  def commitMaxRetries: Int = get(CommitMaxRetries).map(_.trim.toInt).getOrElse(10)
  def dataFilePrefix: String = get(DataFilePrefix).getOrElse("data-")
  def writeBufferSize: Long = get(WriteBufferSize).map(MemorySize.parse(WriteBufferSize, _)).getOrElse(256L << 20)
  def changelogProducer: String = get(ChangelogProducerKey).map(_.trim.toLowerCase).getOrElse(ChangelogProducer.None)
  def changelogFilePrefix: String = get(ChangelogFilePrefix).getOrElse("changelog-")
  def consumerExpiration: Option[java.time.Duration] =
    get(ConsumerExpirationTime).map(DurationText.parse(ConsumerExpirationTime, _))
  def fullCompactionDeltaCommits: Int = get(FullCompactionDeltaCommits).map(_.trim.toInt).getOrElse(1)
  def changelogRowDeduplicate: Boolean = get(ChangelogRowDeduplicate).exists(_.trim.equalsIgnoreCase("true"))
  def changelogRowDeduplicateIgnoreFields: Seq[String] =
    get(ChangelogRowDeduplicateIgnoreFields).toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
  def rowKindField: Option[String] = get(RowKindField).map(_.trim)
  def bucketKey: Seq[String] = get(BucketKey).toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
  def writeOnly: Boolean = get(WriteOnly).exists(_.trim.equalsIgnoreCase("true"))

  def dynamicBucketTargetRowNum: Long = get(DynamicTargetRowNum).map(_.trim.toLong).getOrElse(2000000L)
  def dynamicBucketMaxBuckets: Int = get(DynamicMaxBuckets).map(_.trim.toInt).getOrElse(-1)
  def dynamicBucketAssigners: Option[Int] =
    get(DynamicAssignerParallelism).orElse(get(DynamicInitialBuckets)).map(_.trim.toInt)

  def compactionMinFileNum: Int = get(CompactionMinFileNum).map(_.trim.toInt).getOrElse(5)
  def compactionSmallFileRatio: Double = get(CompactionSmallFileRatio).map(_.trim.toDouble).getOrElse(0.7)
  def splitOpenFileCost: Long = get(SplitOpenFileCost).map(MemorySize.parse(SplitOpenFileCost, _)).getOrElse(4L << 20)

  def compactionTrigger: Int = get(CompactionTrigger).map(_.trim.toInt).getOrElse(5)
  def numLevels: Int = get(NumLevels).map(_.trim.toInt).getOrElse(compactionTrigger + 1)

  def snapshotRetainMin: Int = get(SnapshotRetainMin).map(_.trim.toInt).getOrElse(10)
  def snapshotRetainMax: Int = get(SnapshotRetainMax).map(_.trim.toInt).getOrElse(Int.MaxValue)
  def snapshotTimeRetained: java.time.Duration =
    get(SnapshotTimeRetained).map(DurationText.parse(SnapshotTimeRetained, _)).getOrElse(java.time.Duration.ofHours(1))
  def snapshotExpireLimit: Int = get(SnapshotExpireLimit).map(_.trim.toInt).getOrElse(DefaultExpireLimit)
  def cleanEmptyDirectories: Boolean = get(CleanEmptyDirectories).exists(_.trim.equalsIgnoreCase("true"))

  /** What an expiry after a commit at `nowMillis` keeps. */
  def expireConfig(nowMillis: Long): ExpireConfig = ExpireConfig(snapshotRetainMin, snapshotRetainMax,
    nowMillis - snapshotTimeRetained.toMillis, snapshotExpireLimit)

  // Changelog retention defaults to the snapshots'; longer retention decouples it (Paimon's rule).
  def changelogRetainMin: Int = get(ChangelogRetainMin).map(_.trim.toInt).getOrElse(snapshotRetainMin)
  def changelogRetainMax: Int = get(ChangelogRetainMax).map(_.trim.toInt).getOrElse(snapshotRetainMax)
  def changelogTimeRetained: java.time.Duration =
    get(ChangelogTimeRetained).map(DurationText.parse(ChangelogTimeRetained, _)).getOrElse(snapshotTimeRetained)

  /** Whether changes outlive their snapshots: expiry then keeps them as long-lived changelogs. */
  def changelogDecoupled: Boolean = changelogRetainMax > snapshotRetainMax || changelogRetainMin > snapshotRetainMin ||
    changelogTimeRetained.compareTo(snapshotTimeRetained) > 0

  /** What a changelog expiry after a commit at `nowMillis` keeps. */
  def changelogExpireConfig(nowMillis: Long): ExpireConfig = ExpireConfig(changelogRetainMin, changelogRetainMax,
    nowMillis - changelogTimeRetained.toMillis, snapshotExpireLimit)

  def tagAutoCreation: String = get(TagAutomaticCreation).map(_.trim.toLowerCase).getOrElse("none")
  def tagCreationPeriod: String = get(TagCreationPeriod).map(_.trim.toLowerCase).getOrElse("daily")
  def tagCreationDelay: java.time.Duration =
    get(TagCreationDelay).map(DurationText.parse(TagCreationDelay, _)).getOrElse(java.time.Duration.ZERO)
  def tagNumRetainedMax: Option[Int] = get(TagNumRetainedMax).map(_.trim.toInt)
  def tagDefaultTimeRetained: Option[java.time.Duration] =
    get(TagDefaultTimeRetained).map(DurationText.parse(TagDefaultTimeRetained, _))
  def tagPeriodFormatter: String = get(TagPeriodFormatter).map(_.trim.toLowerCase).getOrElse("with_dashes")

  /** Paimon's universal compaction as this table configures it. */
  def compaction: UniversalCompaction = UniversalCompaction(
    maxSizeAmpPercent = get(MaxSizeAmplification).map(_.trim.toInt).getOrElse(200),
    sizeRatioPercent = get(SizeRatio).map(_.trim.toInt).getOrElse(1),
    trigger = compactionTrigger,
    numLevels = numLevels)
}

object TableOptions {
  val Bucket = "bucket"
  val FileFormat = "file.format"
  val FileCompression = "file.compression"
  val ZstdLevel = "file.compression.zstd-level"
  val TargetFileSize = "target-file-size"
  val ManifestTargetFileSize = "manifest.target-file-size"
  val ManifestMergeMinCount = "manifest.merge-min-count"
  val ManifestCompression = "manifest.compression"
  val PartitionDefaultName = "partition.default-name"
  val PartitionLegacyName = "partition.legacy-name"
  val StatsModeKey = "metadata.stats-mode"
  val CommitMaxRetries = "commit.max-retries"
  val DataFilePrefix = "data-file.prefix"
  val WriteOnly = "write-only"
  /** Writes add the data's new columns and widen types (Paimon's Spark connector option). */
  val WriteMergeSchema = "write.merge-schema"
  /** Such writes may also change a type by a cast that is not a widening. */
  val WriteMergeSchemaExplicitCast = "write.merge-schema.explicit-cast"
  val PrimaryKey = "primary-key"
  val Partition = "partition"
  val BucketKey = "bucket-key"
  val RowKindField = "rowkind.field"
  val WriteBufferSize = "write-buffer-size"
  val ChangelogProducerKey = "changelog-producer"
  val ChangelogFilePrefix = "changelog-file.prefix"
  val ChangelogRowDeduplicate = "changelog-producer.row-deduplicate"
  val FullCompactionDeltaCommits = "full-compaction.delta-commits"
  val ConsumerExpirationTime = "consumer.expiration-time"
  val ChangelogRowDeduplicateIgnoreFields = "changelog-producer.row-deduplicate-ignore-fields"
  val CompactionTrigger = "num-sorted-run.compaction-trigger"
  val DynamicTargetRowNum = "dynamic-bucket.target-row-num"
  val DynamicInitialBuckets = "dynamic-bucket.initial-buckets"
  val DynamicMaxBuckets = "dynamic-bucket.max-buckets"
  val DynamicAssignerParallelism = "dynamic-bucket.assigner-parallelism"
  val StopTrigger = "num-sorted-run.stop-trigger"
  val NumLevels = "num-levels"
  val MaxSizeAmplification = "compaction.max-size-amplification-percent"
  val SizeRatio = "compaction.size-ratio"
  val CompactionMinFileNum = "compaction.min.file-num"
  val CompactionSmallFileRatio = "compaction.small-file-ratio"
  val SplitOpenFileCost = "source.split.open-file-cost"
  val SnapshotRetainMin = "snapshot.num-retained.min"
  val SnapshotRetainMax = "snapshot.num-retained.max"
  val SnapshotTimeRetained = "snapshot.time-retained"
  val SnapshotExpireLimit = "snapshot.expire.limit"
  val ChangelogRetainMin = "changelog.num-retained.min"
  val ChangelogRetainMax = "changelog.num-retained.max"
  val ChangelogTimeRetained = "changelog.time-retained"
  val DefaultExpireLimit = 50
  val CleanEmptyDirectories = "snapshot.clean-empty-directories"
  val TagAutomaticCreation = "tag.automatic-creation"
  val TagCreationPeriod = "tag.creation-period"
  val TagCreationDelay = "tag.creation-delay"
  val TagNumRetainedMax = "tag.num-retained-max"
  val TagDefaultTimeRetained = "tag.default-time-retained"
  val TagPeriodFormatter = "tag.period-formatter"

  /** Options that shape files already written; ALTER TABLE may not change them. */
  val Immutable: Set[String] = Set(Bucket, PrimaryKey, Partition, PartitionDefaultName, PartitionLegacyName,
    BucketKey, "merge-engine", "sequence.field", "sequence.field.sort-order", RowKindField)

  private def int(min: Int, max: Int)(key: String, v: String): Unit =
    if (!v.trim.toIntOption.exists(n => n >= min && n <= max)) {
      throw new InvalidOptionException(key, s"table option '$key' must be an integer in [$min, $max], not '$v'")
    }

  private def oneOf(values: Set[String])(key: String, v: String): Unit =
    if (!values.contains(v.trim.toLowerCase)) {
      throw new InvalidOptionException(key,
        s"table option '$key' must be one of ${values.toSeq.sorted.mkString(", ")}, not '$v'")
    }

  private def boolean(key: String, v: String): Unit = oneOf(Set("true", "false"))(key, v)

  private val anything: (String, String) => Unit = (_, _) => ()

  private def duration(key: String, v: String): Unit = { DurationText.parse(s"table option '$key'", v); () }

  /** Options this engine implements, each with the check of its value. */
  private val supported: Map[String, (String, String) => Unit] = Map(
    // Which values a table may use depends on its primary key: see KeyLayout.
    Bucket -> { (k, v) =>
      int(Int.MinValue, Int.MaxValue)(k, v)
      val n = v.trim.toInt
      if (n == -2) throw new UnsupportedFeatureException(s"table option '$k'=-2 (postpone bucket) is not supported yet", k)
      if (n == 0 || n < -2) throw new InvalidOptionException(k, s"table option '$k' must be -1 (dynamic) or positive, not $v")
    },
    BucketKey -> anything,
    // Checked against the columns by MergeEngineSpec.
    "merge-engine" -> anything,
    "sequence.field" -> anything,
    "sequence.field.sort-order" -> anything,
    RowKindField -> anything,
    "ignore-delete" -> boolean,
    WriteMergeSchema -> boolean,
    WriteMergeSchemaExplicitCast -> boolean,
    "partial-update.remove-record-on-delete" -> boolean,
    ChangelogProducerKey -> { (k, v) =>
      oneOf(ChangelogProducer.All)(k, v)
    },
    ChangelogRowDeduplicate -> boolean,
    ConsumerExpirationTime -> duration,
    FullCompactionDeltaCommits -> int(1, Int.MaxValue),
    ChangelogRowDeduplicateIgnoreFields -> anything,
    // Commits always wait for the compaction that produces their changelog: accepted for compatibility.
    "lookup-wait" -> boolean,
    "changelog-producer.lookup-wait" -> boolean,
    ChangelogFilePrefix -> { (k, v) =>
      if (v.isEmpty || v.contains('/')) throw new InvalidOptionException(k, s"table option '$k' must be a non-empty file name prefix, not '$v'")
    },
    WriteBufferSize -> { (k, v) => MemorySize.parse(k, v); () },
    CompactionTrigger -> int(1, Int.MaxValue),
    DynamicTargetRowNum -> { (k, v) =>
      if (!v.trim.toLongOption.exists(_ > 0)) throw new InvalidOptionException(k, s"table option '$k' must be a positive number, not '$v'")
    },
    DynamicInitialBuckets -> int(1, Short.MaxValue),
    DynamicMaxBuckets -> { (k, v) =>
      if (!v.trim.toIntOption.exists(n => n == -1 || n > 0)) {
        throw new InvalidOptionException(k, s"table option '$k' must be -1 (unlimited) or positive, not '$v'")
      }
    },
    DynamicAssignerParallelism -> int(1, Short.MaxValue),
    // Batch writes never wait for compaction, so there is nothing to stop: accepted for compatibility.
    StopTrigger -> int(1, Int.MaxValue),
    NumLevels -> int(2, 100),
    MaxSizeAmplification -> int(0, Int.MaxValue),
    SizeRatio -> int(0, 100),
    CompactionMinFileNum -> int(1, Int.MaxValue),
    // Above 1, files a compaction just wrote at the target size would count as small again.
    CompactionSmallFileRatio -> { (k, v) =>
      if (!v.trim.toDoubleOption.exists(r => r > 0 && r <= 1)) {
        throw new InvalidOptionException(k, s"table option '$k' must be a number in (0, 1], not '$v'")
      }
    },
    SplitOpenFileCost -> { (k, v) => MemorySize.parse(k, v); () },
    FileFormat -> { (k, v) =>
      oneOf(Set("parquet", "orc", "avro", "csv", "json", "lance", "blob"))(k, v)
      if (v.trim.toLowerCase != "parquet") {
        throw new UnsupportedFeatureException(s"table option '$k'=$v is not supported yet: only parquet is", k)
      }
    },
    FileCompression -> oneOf(ParquetDataFile.SupportedCodecs),
    ZstdLevel -> int(1, 22),
    TargetFileSize -> { (k, v) => MemorySize.parse(k, v); () },
    ManifestTargetFileSize -> { (k, v) => MemorySize.parse(k, v); () },
    ManifestMergeMinCount -> int(1, Int.MaxValue),
    ManifestCompression -> oneOf(Set("zstd", "snappy", "deflate", "null", "none", "uncompressed")),
    PartitionDefaultName -> { (k, v) =>
      if (v.isEmpty) throw new InvalidOptionException(k, s"table option '$k' must not be empty")
    },
    PartitionLegacyName -> { (k, v) =>
      boolean(k, v)
      if (v.trim.toLowerCase != "true") {
        throw new UnsupportedFeatureException(s"table option '$k'=false is not supported yet", k)
      }
    },
    StatsModeKey -> { (k, v) =>
      if (StatsMode.parse(v).isEmpty) {
        throw new InvalidOptionException(k, s"table option '$k' must be none, counts, full or truncate(N), not '$v'")
      }
    },
    CommitMaxRetries -> int(0, 1000),
    SnapshotRetainMin -> int(1, Int.MaxValue),
    SnapshotRetainMax -> int(1, Int.MaxValue),
    SnapshotTimeRetained -> duration,
    SnapshotExpireLimit -> int(1, Int.MaxValue),
    ChangelogRetainMin -> int(1, Int.MaxValue),
    ChangelogRetainMax -> int(1, Int.MaxValue),
    ChangelogTimeRetained -> duration,
    CleanEmptyDirectories -> boolean,
    TagAutomaticCreation -> { (k, v) =>
      oneOf(Set("none", "process-time", "watermark", "batch"))(k, v)
      if (v.trim.toLowerCase == "batch") {
        throw new UnsupportedFeatureException(s"table option '$k'=batch is not supported yet: use process-time or watermark", k)
      }
    },
    TagCreationPeriod -> oneOf(Set("daily", "hourly", "two-hours")),
    TagCreationDelay -> duration,
    TagNumRetainedMax -> int(1, Int.MaxValue),
    TagDefaultTimeRetained -> duration,
    TagPeriodFormatter -> oneOf(Set("with_dashes", "without_dashes", "without_dashes_and_spaces")),
    DataFilePrefix -> anything,
    WriteOnly -> boolean,
    // Read options Paimon also takes as table options.
    "read.changelog" -> boolean,
    Partition -> anything,
    // Written by other engines and kept as they are.
    "path" -> anything,
    "owner" -> anything)

  /** Paimon options that exist but are not implemented here yet: refused, never silently ignored. */
  private val knownUnsupported: Set[String] = Set(
    PrimaryKey, "bucket-function.type", "deletion-vectors.enabled", "deletion-vectors.bitmap64",
    "write-buffer-spillable", "metadata.stats-dense-store", "metadata.stats-keep-first-n-columns",
    "data-file.thin-mode", "data-file.external-paths", "data-file.path-directory", 
    "changelog-file.format", "file.suffix.include.compression", "row-tracking.enabled", "data-evolution.enabled",
    "partition.expiration-time", "consumer.changelog-only",
    "partition.timestamp-formatter", "partition.timestamp-pattern", "consumer-id",
    "scan.mode", "scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.timestamp",
    "incremental-between", "incremental-between-timestamp", "streaming-read-overwrite", "lookup.cache-max-memory-size",
    "local-merge-buffer-size", "cross-partition-upsert.index-ttl", "commit.force-compact", "snapshot.watermark-idle-timeout",
    "file-index.in-manifest-threshold", "manifest.format", "manifest.full-compaction-threshold-size",
    "commit.timeout", "commit.callbacks", "sink.parallelism", "page-size", "read.batch-size", "orc.write.batch-size")

  private val knownUnsupportedPrefixes: Seq[String] = Seq("fields.", "file-index.", "file.format.per.level",
    "file.compression.per.level", "lookup.", "partial-update.", "aggregation.")

  /** Column options of the merge engines, checked against the columns by MergeEngineSpec. */
  private val ColumnOption =
    "fields\\.(.+)\\.(aggregate-function|ignore-retract|distinct|list-agg-delimiter|sequence-group)|fields\\.default-aggregate-function".r

  /** Checks every option; throws naming the first one that is unknown, malformed or unsupported. */
  def validate(options: Map[String, String]): Unit = {
    options.toSeq.sortBy(_._1).foreach { case (key, value) =>
      supported.get(key) match {
        case Some(check) => check(key, value)
        case None if ColumnOption.matches(key) => ()
        case None if knownUnsupported.contains(key) || knownUnsupportedPrefixes.exists(key.startsWith) =>
          throw new UnsupportedFeatureException(s"table option '$key' is a Paimon option that paimon-spark does not support yet", key)
        case None =>
          throw new InvalidOptionException(key, s"unknown table option '$key'")
      }
    }
    val o = TableOptions(options)
    if (o.snapshotRetainMin > o.snapshotRetainMax) {
      throw new InvalidOptionException(SnapshotRetainMin, s"table option '$SnapshotRetainMin' (${o.snapshotRetainMin}) " +
        s"must not exceed '$SnapshotRetainMax' (${o.snapshotRetainMax})")
    }
    if (o.changelogRetainMin > o.changelogRetainMax) {
      throw new InvalidOptionException(ChangelogRetainMin, s"table option '$ChangelogRetainMin' " +
        s"(${o.changelogRetainMin}) must not exceed '$ChangelogRetainMax' (${o.changelogRetainMax})")
    }
  }
}
