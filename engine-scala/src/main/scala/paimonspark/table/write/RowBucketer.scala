package paimonspark.table.write

import java.util.Base64

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import paimonspark.format._
import paimonspark.format.row._
import paimonspark.format.metadata._
import paimonspark.table.{BucketFunctionType, FileStoreTable, KeyLayout}

/** How a write puts rows into buckets; planned on the driver. */
sealed trait Bucketing extends Serializable {
  /** The bucket count a write records for its files of a partition (by [[RowBucketer.partitionKey]]). */
  def totalBuckets(partition: String, tableBuckets: Int): Int = tableBuckets
}

object Bucketing {
  /** `bucket` = N: Paimon's bucket function over the bucket key. */
  final case class Fixed(buckets: Int) extends Bucketing
  /**
   * `bucket` = -1: buckets looked up in, and added to, the HASH index; `index` holds each
   * partition's index files (by [[RowBucketer.partitionKey]]) in the snapshot the write starts from,
   * none for an overwrite: every partition it writes is replaced, keys and index alike.
   */
  final case class Dynamic(assigners: Int, targetRowNum: Long, maxBuckets: Int,
      index: Map[String, Seq[IndexFileEntry]]) extends Bucketing
  /**
   * `bucket` = -2, a batch write with `postpone.batch-write-fixed-bucket`: as Paimon's Spark writer,
   * straight into fixed buckets, as many as a partition's files have (`known`), `default` in a new one.
   * The plan leaves `known` empty; the write fills it from the [[WriteRestore]] its writers start from.
   */
  final case class PerPartition(known: Map[String, Int], default: Int) extends Bucketing {
    def of(partition: String): Int = known.getOrElse(partition, default)
    override def totalBuckets(partition: String, tableBuckets: Int): Int = of(partition)
  }
  /** `bucket` = -2 otherwise: into the postpone bucket, unread until a compaction assigns buckets. */
  case object Postpone extends Bucketing
  /**
   * `bucket` = -1 on a cross-partition table ([[KeyLayout.crossPartition]]): each key's partition
   * and bucket by where the table holds it ([[CrossPartitionAssigner]]). `keys` is the name prefix
   * of the bootstrap's files of key locations, one per assigner; None when there is nothing to look
   * up (a new table, or an overwrite of the whole table).
   */
  final case class CrossPartition(assigners: Int, targetRowNum: Long, keys: Option[String]) extends Bucketing {
    def locations(table: FileStoreTable, assigner: Int): KeyLocations = keys.fold(new KeyLocations) { prefix =>
      KeyLocations.read(table.io, table.paths.indexFile(s"$prefix$assigner"), table.schema.primaryKeys.size,
        table.schema.partitionKeys.size)
    }
  }

  /** The assigner of a key's hash among `assigners`, which owns the buckets b with b % assigners == it. */
  def assignerOf(hash: Int, assigners: Int): Int = math.abs(hash % assigners)

  def plan(table: FileStoreTable, assigners: => Int, overwrite: Boolean, streaming: Boolean = false): Bucketing = {
    val options = table.options
    if (options.bucket > 0) Fixed(options.bucket)
    else if (options.bucket == TablePaths.PostponeBucket) {
      if (streaming || !options.postponeBatchWriteFixedBucket) Postpone
      else PerPartition(Map.empty, math.min(assigners, options.postponeBatchWriteMaxParallelism))
    } else if (KeyLayout.crossPartition(table.schema)) {
      CrossPartition(options.dynamicBucketAssigners.getOrElse(assigners), options.dynamicBucketTargetRowNum, None)
    } else {
      val files = if (overwrite || !table.isPrimaryKeyTable) Nil else table.newManifestStore().indexFiles(table.snapshotManager.latest())
        .filter(_.indexType == IndexManifestAvro.HashIndex)
      val n = options.dynamicBucketAssigners.getOrElse(assigners)
      Dynamic(n, options.dynamicBucketTargetRowNum, options.dynamicBucketMaxBuckets,
        files.groupBy(f => RowBucketer.partitionKey(f.partition)))
    }
  }
}

/**
 * The index files of one type a write made for one (partition, bucket), and the files of that type
 * it read there and replaces: a HASH file replacing the bucket's previous one (none for a new
 * bucket), or a compaction's DELETION_VECTORS files (none when no vector is left) replacing the
 * bucket's.
 */
final case class IndexChange(partition: Array[Byte], bucket: Int, indexType: String, entries: Seq[IndexFileEntry],
    replaces: Set[String]) {
  def slot: (java.nio.ByteBuffer, Int, String) = (java.nio.ByteBuffer.wrap(partition), bucket, indexType)
}

/** The bucket of each row a task writes, and for dynamic buckets the index files that grew. */
final class RowBucketer(table: FileStoreTable, bucketing: Bucketing) {
  private val schema = table.schema
  private val layout = KeyLayout.of(table.location.toString, schema)
  // Fixed buckets by the table's bucket function over the bucket key; dynamic ones by the key's hash.
  private val function = BucketFunctionType.bucketer(schema,
    if (bucketing.isInstanceOf[Bucketing.Dynamic]) layout.trimmedKeys else layout.bucketKeys)
  private val toPartition = ColumnProjection(schema, schema.partitionKeys)
  private val partitionTypes = schema.partitionRowType.map(_.withNullable(true))
  private val assigners = mutable.HashMap.empty[(UnsafeRow, Int), (Array[Byte], DynamicBucketAssigner)]
  // Postpone-bucket batch writes: each partition's bucket count, looked up once per partition, not per row.
  private val partitionBuckets = mutable.HashMap.empty[UnsafeRow, Int]

  def bucketOf(row: InternalRow): Int =
    bucketing match {
      case Bucketing.Fixed(n) => function.bucket(row, n)
      case p: Bucketing.PerPartition =>
        val partition = toPartition(row)
        val n = partitionBuckets.getOrElse(partition, {
          val known = p.of(RowBucketer.partitionKey(BinaryRow.serialize(partitionTypes, partition)))
          partitionBuckets.put(partition.copy(), known)
          known
        })
        function.bucket(row, n)
      case Bucketing.Postpone => TablePaths.PostponeBucket
      case _: Bucketing.CrossPartition => throw new IllegalStateException("a cross-partition write routes its rows itself")
      case d: Bucketing.Dynamic =>
        val hash = function.hash(row)
        val assignId = Bucketing.assignerOf(hash, d.assigners)
        val partition = toPartition(row)
        assigners.getOrElseUpdate((partition.copy(), assignId), {
          val bytes = BinaryRow.serialize(partitionTypes, partition)
          val existing = d.index.getOrElse(RowBucketer.partitionKey(bytes), Nil)
            .map(f => f.bucket -> HashIndexFile.read(table.io.readBytes(table.paths.indexFile(f.fileName)))).toMap
          (bytes, new DynamicBucketAssigner(assignId, d.assigners, d.targetRowNum, d.maxBuckets, existing))
        })._2.assign(hash)
    }

  /** Writes a complete HASH index file for every bucket that got new keys. */
  def writeIndexes(): Seq[IndexChange] = bucketing match {
    case _: Bucketing.Fixed | _: Bucketing.PerPartition | Bucketing.Postpone | _: Bucketing.CrossPartition => Nil
    case d: Bucketing.Dynamic =>
      val namer = new FileNamer(TablePaths.IndexFilePrefix, "")
      assigners.values.toSeq.flatMap { case (partition, assigner) =>
        val previous = d.index.getOrElse(RowBucketer.partitionKey(partition), Nil)
        assigner.newHashes.toSeq.map { case (bucket, added) =>
          val old = previous.find(_.bucket == bucket)
          val all = (assigner.existing.getOrElse(bucket, Array.empty[Int]).toSet ++ added).toSeq.sorted
          val name = namer.next()
          val bytes = HashIndexFile.write(all)
          table.io.writeBytes(table.paths.indexFile(name), bytes)
          IndexChange(partition, bucket, IndexManifestAvro.HashIndex, Seq(IndexFileEntry(FileKind.Add, partition, bucket,
            IndexManifestAvro.HashIndex, name, bytes.length.toLong, all.size.toLong)), old.map(_.fileName).toSet)
        }
      }
  }
}

object RowBucketer {
  def partitionKey(partition: Array[Byte]): String = Base64.getEncoder.encodeToString(partition)
}
