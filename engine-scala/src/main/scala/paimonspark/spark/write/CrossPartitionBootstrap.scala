package paimonspark.spark.write

import java.util.UUID

import scala.jdk.CollectionConverters._

import org.apache.spark.HashPartitioner
import org.apache.spark.rdd.ShuffledRDD
import org.apache.spark.serializer.KryoSerializer
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.types.StructType

import paimonspark.format.{SparkTypes, TablePaths}
import paimonspark.format.metadata.DataFileMeta
import paimonspark.spark.read.{BucketColumn, PrimaryKeyScan}
import paimonspark.table.{BucketFunctionType, FileStoreTable}
import paimonspark.table.scan.ScanPlanner
import paimonspark.table.write.{Bucketing, KeyLocations, PrimaryKeyWriter}

/**
 * Paimon's index bootstrap for a cross-partition write, as a Spark job: a merge-on-read scan of
 * the primary key, partition and bucket of every live row at the write's snapshot, shuffled by the
 * key's assigner, each assigner's slice written to a file of key locations ([[KeyLocations]]) in the
 * table's `index/` directory, which the write's tasks load for the assigners they write. With
 * `cross-partition-upsert.index-ttl`, buckets whose files are all older than the TTL are not read,
 * as in Paimon (their keys may then be written again elsewhere).
 */
object CrossPartitionBootstrap {
  /**
   * The files' name prefix, or None when the table holds no row at `snapshotId`. A failed bootstrap
   * deletes what it wrote.
   */
  def run(table: FileStoreTable, snapshotId: Option[Long], assigners: Int): Option[String] =
    snapshotId.flatMap(table.snapshotManager.readIfExists).flatMap { snapshot =>
      val at = table.readingAt(snapshot)
      val schema = table.schema
      val names = schema.primaryKeys ++ schema.partitionKeys.filterNot(schema.primaryKeys.contains)
      val columns = SparkTypes.physical(SparkTypes.toSparkStruct(schema.fields, withFieldIds = false))
      val scan = new PrimaryKeyScan(at, StructType(names.map(columns(_)) :+ BucketColumn.field), Nil, None,
        buckets = table.options.crossPartitionIndexTtl.map(youngBuckets(at, _)), everyLevel = true)
      val tasks = scan.planInputPartitions()
      if (tasks.isEmpty) None
      else {
        val read = scan.readSchema()
        val factory = scan.createReaderFactory()
        val prefix = s"${TablePaths.KeyLocationsPrefix}${UUID.randomUUID()}-"
        def projection(keys: Seq[String]) = keys.map(k => BoundReference(read.fieldIndex(k), read(k).dataType, true))
        val keys = schema.primaryKeys
        val partitions = schema.partitionKeys
        val bucketOrdinal = read.fieldIndex(BucketColumn.Name)
        val keyTypes = keys.map(schema.field(_).dataType)
        val keyOrdinals = keys.map(read.fieldIndex)
        val context = SparkSession.active.sparkContext
        val located = context.parallelize(tasks.toSeq, tasks.length).mapPartitions { inputs =>
          val toKey = UnsafeProjection.create(projection(keys))
          val toPartition = UnsafeProjection.create(projection(partitions))
          val hash = BucketFunctionType.bucketer(BucketFunctionType.Default, keyTypes, keyOrdinals)
          inputs.flatMap(rows(factory, _)).map { row =>
            (Bucketing.assignerOf(hash.hash(row), assigners),
              KeyLocations.entry(toKey(row), toPartition(row), row.getInt(bucketOrdinal)))
          }
        }
        // Kryo: Spark's default Java serialization of the shuffled byte arrays costs more than the scan.
        try new ShuffledRDD[Int, Array[Byte], Array[Byte]](located, new HashPartitioner(assigners))
          .setSerializer(new KryoSerializer(context.getConf)).foreachPartition { slice =>
            if (slice.hasNext) {
              val first = slice.buffered
              KeyLocations.write(at.io, at.paths.indexFile(s"$prefix${first.head._1}"), first.map(_._2))
            }
          }
        catch {
          case e: Throwable =>
            delete(table, prefix, assigners)
            throw e
        }
        Some(prefix)
      }
    }

  /** Deletes a bootstrap's files: the write they served committed or failed. */
  def delete(table: FileStoreTable, prefix: String, assigners: Int): Unit =
    (0 until assigners).foreach(a => table.io.delete(table.paths.indexFile(s"$prefix$a"), recursive = false))

  /** The buckets (as [[PrimaryKeyWriter.sequenceKey]] names them) with a file younger than `ttl`, as Paimon keeps them. */
  private def youngBuckets(table: FileStoreTable, ttl: java.time.Duration): Set[String] = {
    val now = DataFileMeta.creationTimeMillis()
    ScanPlanner.forMetadata(table).plan(table.currentSnapshot(), None)
      .filter(_.files.exists(_.creationTimeMillis.forall(now <= _ + ttl.toMillis)))
      .map(s => PrimaryKeyWriter.sequenceKey(s.partitionBytes, s.bucket)).toSet
  }

  /** The rows of one of a scan's tasks, read as Spark would (batches when the reader gives them), then closed. */
  private def rows(factory: PartitionReaderFactory, task: InputPartition): Iterator[InternalRow] =
    if (factory.supportColumnarReads(task)) {
      val reader = factory.createColumnarReader(task)
      Iterator.continually(reader.next()).takeWhile { more => if (!more) reader.close(); more }
        .flatMap(_ => reader.get().rowIterator().asScala)
    } else {
      val reader = factory.createReader(task)
      Iterator.continually(reader.next()).takeWhile { more => if (!more) reader.close(); more }.map(_ => reader.get())
    }

}
