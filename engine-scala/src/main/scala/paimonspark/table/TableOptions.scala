package paimonspark.table

import paimonspark.InvalidOptionException
import paimonspark.format.{FileWriteSpec, LevelFormats, StatsMode}
import paimonspark.format.files.DataFileCodecs
import paimonspark.lsm.UniversalCompaction
import paimonspark.table.options.{DurationText, ForeignKeys, MemorySize, PaimonOptions}

/** What to keep when expiring snapshots: Paimon's `snapshot.*` retention options, or a procedure's arguments. */
final case class ExpireConfig(retainMin: Int, retainMax: Int, olderThanMillis: Long, maxDeletes: Int)

/**
 * Typed access to a table's options (the `options` of its schema, fallback keys resolved), with
 * Paimon's defaults as [[PaimonOptions]] states them, and the validation every CREATE and ALTER
 * goes through before anything is written.
 */
final case class TableOptions(raw: Map[String, String]) {
  import TableOptions._

  private def get(key: String): Option[String] = raw.get(key).orElse(PaimonOptions.get(key).flatMap(_.default))
  private def text(key: String): String = get(key).getOrElse(throw new IllegalStateException(s"option '$key' has no default"))
  private def int(key: String): Int = text(key).trim.toInt
  private def long(key: String): Long = text(key).trim.toLong
  private def flag(key: String): Boolean = text(key).trim.equalsIgnoreCase("true")
  private def bytes(key: String): Long = MemorySize.parse(key, text(key))
  private def duration(key: String): java.time.Duration = DurationText.parse(key, text(key))
  private def list(key: String): Seq[String] = get(key).toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)

  def bucket: Int = int(Bucket)
  def fileFormat: String = text(FileFormat).trim.toLowerCase
  def fileCompression: String = text(FileCompression).trim.toLowerCase
  /** How data files are written: `file.format`, `file.compression`, and the format's own options (`orc.*`, ...). */
  def fileWriteSpec: FileWriteSpec = FileWriteSpec(fileFormat, fileCompression, zstdLevel,
    raw.filter { case (k, _) => FormatOptionPrefixes.exists(k.startsWith) })
  /** Each level's format and codec, where `file.format.per.level` and `file.compression.per.level` name one. */
  def levelFormats: LevelFormats = LevelFormats(fileWriteSpec, levelMap(FileFormatPerLevel), levelMap(FileCompressionPerLevel))
  /** Changelog files' format and codec: `changelog-file.format` and `-compression`, else the data files'. */
  def changelogWriteSpec: FileWriteSpec = fileWriteSpec.copy(
    format = raw.get(ChangelogFileFormat).map(_.trim.toLowerCase).getOrElse(fileFormat),
    compression = raw.get(ChangelogFileCompression).map(_.trim.toLowerCase).getOrElse(fileCompression))
  private def levelMap(key: String): Map[Int, String] = list(key).map { entry =>
    val Array(level, value) = entry.split(":", 2)
    level.trim.toInt -> value.trim.toLowerCase
  }.toMap
  /** ORC files hold TIMESTAMP_LTZ values as their UTC wall clock, as Paimon wrote them by default. */
  def orcLegacyLtz: Boolean = flag(OrcTimestampLtzLegacy)
  def zstdLevel: Int = int(ZstdLevel)
  /** Paimon's default differs by table kind: 128 mb with a primary key, 256 mb without. */
  def targetFileSize(primaryKey: Boolean): Long =
    get(TargetFileSize).map(MemorySize.parse(TargetFileSize, _)).getOrElse(if (primaryKey) 128L << 20 else 256L << 20)
  /** Files below this size are small: compaction rewrites them rather than leaving or moving them as they are. */
  def compactionFileSize(primaryKey: Boolean): Long = (targetFileSize(primaryKey) * compactionSmallFileRatio).toLong
  def manifestTargetFileSize: Long = bytes(ManifestTargetFileSize)
  def manifestMergeMinCount: Int = int(ManifestMergeMinCount)
  def manifestFullCompactionThreshold: Long = bytes(ManifestFullCompactionThreshold)
  def manifestCompression: String = text(ManifestCompression)
  def partitionDefaultName: String = text(PartitionDefaultName)
  def statsMode: StatsMode = StatsMode.parse(text(StatsModeKey)).getOrElse(StatsMode.Truncate(16))
  /** Columns whose stats mode is their own (`fields.<column>.stats-mode`). */
  def fieldStatsModes: Map[String, StatsMode] = raw.collect {
    case (FieldStatsMode(column), v) => column -> StatsMode.parse(v).getOrElse(StatsMode.Truncate(16))
  }
  def commitMaxRetries: Int = int(CommitMaxRetries)
  /** The writers promise there is only one of them: commits may go to object stores without conditional writes. */
  def objectStoreSingleWriter: Boolean = flag(ObjectStoreSingleWriter)
  def dataFilePrefix: String = text(DataFilePrefix)
  def writeBufferSize: Long = bytes(WriteBufferSize)
  def changelogProducer: String = text(ChangelogProducerKey).trim.toLowerCase
  def changelogFilePrefix: String = text(ChangelogFilePrefix)
  def consumerExpiration: Option[java.time.Duration] = get(ConsumerExpirationTime).map(_ => duration(ConsumerExpirationTime))
  /** Without it, Paimon's full-compaction producer compacts fully at every commit of a batch write. */
  def fullCompactionDeltaCommits: Int = get(FullCompactionDeltaCommits).map(_.trim.toInt).getOrElse(1)
  def changelogRowDeduplicate: Boolean = flag(ChangelogRowDeduplicate)
  def changelogRowDeduplicateIgnoreFields: Seq[String] = list(ChangelogRowDeduplicateIgnoreFields)
  def rowKindField: Option[String] = get(RowKindField).map(_.trim)
  def bucketKey: Seq[String] = list(BucketKey)
  def writeOnly: Boolean = flag(WriteOnly)
  def deletionVectors: Boolean = flag(DeletionVectors)
  def deletionVectorsBitmap64: Boolean = flag(DeletionVectorsBitmap64)
  def deletionVectorsModifiable: Boolean = flag(DeletionVectorsModifiable)
  /** Another engine gave the table's rows ids for life (`t$row_tracking` reads them; writes are refused). */
  def rowTracking: Boolean = flag(RowTracking)
  def bucketFunctionType: String = text(BucketFunctionType).trim.toLowerCase

  def dynamicBucketTargetRowNum: Long = long(DynamicTargetRowNum)
  def dynamicBucketMaxBuckets: Int = int(DynamicMaxBuckets)
  def postponeBatchWriteFixedBucket: Boolean = flag("postpone.batch-write-fixed-bucket")
  def postponeBatchWriteMaxParallelism: Int = int("postpone.batch-write-fixed-bucket.max-parallelism")
  /** `postpone.default-bucket-num` when the table sets it: Paimon's Spark compaction uses Spark's parallelism otherwise. */
  def postponeDefaultBucketNum: Option[Int] = raw.get("postpone.default-bucket-num").map(_.trim.toInt)
  /** Keys only in files older than this are not looked up by a cross-partition write (and may then be duplicated). */
  def crossPartitionIndexTtl: Option[java.time.Duration] =
    get("cross-partition-upsert.index-ttl").map(DurationText.parse("cross-partition-upsert.index-ttl", _))
  def dynamicBucketAssigners: Option[Int] =
    get(DynamicAssignerParallelism).orElse(get(DynamicInitialBuckets)).map(_.trim.toInt)

  def compactionMinFileNum: Int = int(CompactionMinFileNum)
  /** A full compaction rewrites every file, even where nothing needs merging (files in an older encoding, say). */
  def forceRewriteAllFiles: Boolean = flag("compaction.force-rewrite-all-files")
  def compactionSmallFileRatio: Double = text(CompactionSmallFileRatio).trim.toDouble
  def splitOpenFileCost: Long = bytes(SplitOpenFileCost)
  /** The split size a read packs its tasks to, when the table or the read sets one. */
  def splitTargetSizeSet: Option[Long] = raw.get(SplitTargetSize).map(MemorySize.parse(SplitTargetSize, _))
  /** The cost of opening a file when a read packs its tasks, when the table or the read sets one. */
  def splitOpenFileCostSet: Option[Long] = raw.get(SplitOpenFileCost).map(MemorySize.parse(SplitOpenFileCost, _))

  def compactionTrigger: Int = int(CompactionTrigger)
  /** Without it, Paimon keeps one level more than the compaction trigger. */
  def numLevels: Int = get(NumLevels).map(_.trim.toInt).getOrElse(compactionTrigger + 1)

  /** `metadata.iceberg.storage`, lower case: `disabled` unless Iceberg metadata is kept beside each snapshot. */
  def icebergStorage: String = text(IcebergStorageKey).trim.toLowerCase
  /** `metadata.iceberg.storage-location`, when set. */
  def icebergStorageLocation: Option[String] = get(IcebergStorageKey + "-location").map(_.trim.toLowerCase)
  def icebergFormatVersion: Int = int("metadata.iceberg.format-version")
  def icebergManifestCompression: String = text("metadata.iceberg.manifest-compression")
  def icebergLegacyManifests: Boolean = flag("metadata.iceberg.manifest-legacy-version")
  def icebergCompactMinFiles: Int = int("metadata.iceberg.compaction.min.file-num")
  def icebergCompactMaxFiles: Int = int("metadata.iceberg.compaction.max.file-num")
  def icebergDeleteAfterCommit: Boolean = flag("metadata.iceberg.delete-after-commit.enabled")
  def icebergPreviousVersionsMax: Int = int("metadata.iceberg.previous-versions-max")

  def snapshotRetainMin: Int = int(SnapshotRetainMin)
  def snapshotRetainMax: Int = int(SnapshotRetainMax)
  def snapshotTimeRetained: java.time.Duration = duration(SnapshotTimeRetained)
  def snapshotExpireLimit: Int = int(SnapshotExpireLimit)
  def cleanEmptyDirectories: Boolean = flag(CleanEmptyDirectories)

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

  def tagAutoCreation: String = text(TagAutomaticCreation).trim.toLowerCase
  def tagCreationPeriod: String = text(TagCreationPeriod).trim.toLowerCase
  def tagCreationDelay: java.time.Duration = duration(TagCreationDelay)
  def tagNumRetainedMax: Option[Int] = get(TagNumRetainedMax).map(_.trim.toInt)
  def tagDefaultTimeRetained: Option[java.time.Duration] =
    get(TagDefaultTimeRetained).map(DurationText.parse(TagDefaultTimeRetained, _))
  def tagPeriodFormatter: String = text(TagPeriodFormatter).trim.toLowerCase
  def tagTimeExpireEnabled: Boolean = flag(TagTimeExpireEnabled)
  def partitionExpirationTime: Option[java.time.Duration] =
    get(PartitionExpirationTime).map(DurationText.parse(PartitionExpirationTime, _))
  def partitionExpirationCheckInterval: java.time.Duration = duration(PartitionExpirationCheckInterval)
  def partitionExpirationStrategy: String = text(PartitionExpirationStrategy).trim.toLowerCase
  def partitionExpirationMaxNum: Int = int(PartitionExpirationMaxNum)
  def partitionTimestampFormatter: Option[String] = get(PartitionTimestampFormatter).filter(_.trim.nonEmpty)
  def partitionTimestampPattern: Option[String] = get(PartitionTimestampPattern).filter(_.trim.nonEmpty)
  def endInputChecksPartitionExpiry: Boolean = flag(EndInputCheckPartitionExpire)
  def markDoneActions: Seq[String] = list(MarkDoneAction).map(_.toLowerCase)
  def endInputToDone: Boolean = flag(EndInputToDone)
  def deleteForceProducesChangelog: Boolean = flag(DeleteForceProduceChangelog)
  /** The zone a watermark is read in to name its period (`sink.watermark-time-zone`, UTC by default). */
  def watermarkZone: java.time.ZoneId = java.time.ZoneId.of(text(WatermarkTimeZone).trim)
  /** The zone a commit time is read in to name its period (`sink.process-time-zone`, the JVM's by default). */
  def processTimeZone: java.time.ZoneId =
    get(ProcessTimeZone).map(z => java.time.ZoneId.of(z.trim)).getOrElse(java.time.ZoneId.systemDefault())

  /**
   * With `lookup-compact` = `gentle`, how many level-0 runs a bucket gathers before they are forced
   * up: `lookup-compact.max-interval`, by default twice the compaction trigger, never below it.
   */
  def gentleLookupInterval: Option[Int] =
    if (!text(LookupCompact).trim.equalsIgnoreCase("gentle")) None
    else Some(math.max(compactionTrigger, get(LookupCompactMaxInterval).map(_.trim.toInt).getOrElse(compactionTrigger * 2)))

  /** Paimon's universal compaction as this table configures it. */
  def compaction: UniversalCompaction = UniversalCompaction(
    maxSizeAmpPercent = int(MaxSizeAmplification),
    sizeRatioPercent = int(SizeRatio),
    trigger = compactionTrigger,
    numLevels = numLevels)
}

object TableOptions {
  val Bucket = "bucket"
  val FileFormat = "file.format"
  val FileFormatPerLevel = "file.format.per.level"
  val FileCompressionPerLevel = "file.compression.per.level"
  val ChangelogFileFormat = "changelog-file.format"
  val ChangelogFileCompression = "changelog-file.compression"
  /** Options Paimon hands to a format's writer as they are. */
  val FormatOptionPrefixes: Seq[String] = Seq("orc.", "parquet.", "avro.")
  val OrcTimestampLtzLegacy = "orc.timestamp-ltz.legacy.type"
  val FileCompression = "file.compression"
  val ZstdLevel = "file.compression.zstd-level"
  val TargetFileSize = "target-file-size"
  val ManifestTargetFileSize = "manifest.target-file-size"
  val ManifestMergeMinCount = "manifest.merge-min-count"
  val ManifestFullCompactionThreshold = "manifest.full-compaction-threshold-size"
  val ManifestCompression = "manifest.compression"
  val PartitionDefaultName = "partition.default-name"
  val PartitionLegacyName = "partition.legacy-name"
  val StatsModeKey = "metadata.stats-mode"
  val FieldStatsMode = "fields\\.(.+)\\.stats-mode".r
  val CommitMaxRetries = "commit.max-retries"
  val ObjectStoreSingleWriter: String = paimonspark.fs.PublishMethod.SingleWriterOption
  val DataFilePrefix = "data-file.prefix"
  val WriteOnly = "write-only"
  val DeletionVectors = "deletion-vectors.enabled"
  val DeletionVectorsBitmap64 = "deletion-vectors.bitmap64"
  val DeletionVectorsModifiable = "deletion-vectors.modifiable"
  val RowTracking = "row-tracking.enabled"
  val BucketFunctionType = "bucket-function.type"
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
  val PartitionExpirationTime = "partition.expiration-time"
  val PartitionExpirationCheckInterval = "partition.expiration-check-interval"
  val PartitionExpirationStrategy = "partition.expiration-strategy"
  val PartitionExpirationMaxNum = "partition.expiration-max-num"
  val PartitionTimestampFormatter = "partition.timestamp-formatter"
  val PartitionTimestampPattern = "partition.timestamp-pattern"
  val EndInputCheckPartitionExpire = "end-input.check-partition-expire"
  val MarkDoneAction = "partition.mark-done-action"
  val EndInputToDone = "partition.end-input-to-done"
  val DeleteForceProduceChangelog = "delete.force-produce-changelog"
  val ChangelogRowDeduplicateIgnoreFields = "changelog-producer.row-deduplicate-ignore-fields"
  val CompactionTrigger = "num-sorted-run.compaction-trigger"
  val LookupCompact = "lookup-compact"
  val LookupCompactMaxInterval = "lookup-compact.max-interval"
  val DynamicTargetRowNum = "dynamic-bucket.target-row-num"
  val DynamicInitialBuckets = "dynamic-bucket.initial-buckets"
  val DynamicMaxBuckets = "dynamic-bucket.max-buckets"
  val DynamicAssignerParallelism = "dynamic-bucket.assigner-parallelism"
  val StopTrigger = "num-sorted-run.stop-trigger"
  val NumLevels = "num-levels"
  val IcebergStorageKey = "metadata.iceberg.storage"
  val MaxSizeAmplification = "compaction.max-size-amplification-percent"
  val SizeRatio = "compaction.size-ratio"
  val CompactionMinFileNum = "compaction.min.file-num"
  val CompactionSmallFileRatio = "compaction.small-file-ratio"
  val SplitOpenFileCost = "source.split.open-file-cost"
  val SplitTargetSize = "source.split.target-size"
  val SnapshotRetainMin = "snapshot.num-retained.min"
  val SnapshotRetainMax = "snapshot.num-retained.max"
  val SnapshotTimeRetained = "snapshot.time-retained"
  val SnapshotExpireLimit = "snapshot.expire.limit"
  val ChangelogRetainMin = "changelog.num-retained.min"
  val ChangelogRetainMax = "changelog.num-retained.max"
  val ChangelogTimeRetained = "changelog.time-retained"
  val CleanEmptyDirectories = "snapshot.clean-empty-directories"
  val TagAutomaticCreation = "tag.automatic-creation"
  val TagCreationPeriod = "tag.creation-period"
  val TagCreationDelay = "tag.creation-delay"
  val TagNumRetainedMax = "tag.num-retained-max"
  val TagDefaultTimeRetained = "tag.default-time-retained"
  val TagPeriodFormatter = "tag.period-formatter"
  val TagTimeExpireEnabled = "tag.time-expire-enabled"
  val WatermarkTimeZone = "sink.watermark-time-zone"
  val ProcessTimeZone = "sink.process-time-zone"

  /**
   * Options that shape files already written; ALTER TABLE may not change them (`bucket` only within
   * the rules of a rescale, see SchemaChanges).
   */
  val Immutable: Set[String] = Set(PrimaryKey, Partition, PartitionDefaultName, PartitionLegacyName,
    BucketKey, "merge-engine", "sequence.field", "sequence.field.sort-order", RowKindField, "bucket-function.type",
    "data-file.path-directory", "aggregation.remove-record-on-delete", "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group", "force-lookup", RowTracking, "data-evolution.enabled",
    "index-file-in-data-file-dir", "blob-descriptor-field", "blob-external-storage-path", "blob-external-storage-field",
    "pk-clustering-override")

  /**
   * Checks the options a CREATE or ALTER sets; throws naming the first one that is malformed, not
   * implemented, only a read's, or not Paimon's but like a misspelling of one ([[ForeignKeys]]: keys
   * that are not Paimon's are kept, as Paimon keeps them).
   */
  def validate(options: Map[String, String]): Unit = {
    options.toSeq.sortBy(_._1).foreach { case (key, value) =>
      PaimonOptions.get(key) match {
        case None => ForeignKeys.check(key)
        case Some(option) if !option.scope.table =>
          throw new InvalidOptionException(key, s"'$key' is a read option, not a table option: give it to a read " +
            "(spark.read.option, or a table's options in SQL)")
        case Some(option) => option.check(value)
      }
    }
    val o = TableOptions(options)
    if (o.snapshotRetainMin > o.snapshotRetainMax) {
      throw new InvalidOptionException(SnapshotRetainMin, s"table option '$SnapshotRetainMin' (${o.snapshotRetainMin}) " +
        s"must not exceed '$SnapshotRetainMax' (${o.snapshotRetainMax})")
    }
    // Every format the table writes in takes the codec it is to be written with.
    val specs = (o.levelFormats.formats.keySet ++ o.levelFormats.compressions.keySet).toSeq.sorted.map(l =>
      (o.levelFormats.level(l), s"$FileCompressionPerLevel' / '$FileFormatPerLevel (level $l)")) ++
      Seq(o.fileWriteSpec -> FileCompression, o.changelogWriteSpec -> s"$ChangelogFileCompression")
    specs.find { case (spec, _) => !DataFileCodecs.supported(spec.format, spec.compression) }.foreach { case (spec, key) =>
      throw new InvalidOptionException(key, s"table option '$key': ${spec.format} files are not written with " +
        s"'${spec.compression}' (one of ${DataFileCodecs.of(spec.format).mkString(", ")})")
    }
    if (o.changelogRetainMin > o.changelogRetainMax) {
      throw new InvalidOptionException(ChangelogRetainMin, s"table option '$ChangelogRetainMin' " +
        s"(${o.changelogRetainMin}) must not exceed '$ChangelogRetainMax' (${o.changelogRetainMax})")
    }
  }
}
