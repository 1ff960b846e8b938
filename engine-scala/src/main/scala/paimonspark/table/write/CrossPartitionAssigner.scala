package paimonspark.table.write

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, JoinedRow, UnsafeProjection, UnsafeRow}

import paimonspark.format.SparkTypes
import paimonspark.lsm.{KeyValue, MergeEngineSpec}
import paimonspark.table.{BucketFunctionType, FileStoreTable}

/**
 * The partition and bucket of each row a task writes to a cross-partition table (`bucket` = -1,
 * a primary key without every partition column), as Paimon's GlobalIndexAssigner decides them.
 * Rows reach the task clustered by assigner (|hash % assigners| of the primary key's hash), and the
 * task loads where the table holds each assigner's keys from the bootstrap's files
 * ([[KeyLocations]]). A key found in another partition than its row's is, by merge engine:
 *  - deduplicate: retracted there (a -D with the old partition's values) and written to the new one;
 *  - partial-update, aggregation: written to the old partition, its partition columns set to it;
 *  - first-row: dropped.
 * A new key goes to a bucket of its partition the assigner owns ([[KeyLocations.newBucket]]). A
 * retraction goes where its key lives, whatever partition values it carries (a DELETE's carry none);
 * one of a key the table does not hold changes nothing and is dropped.
 */
final class CrossPartitionAssigner(table: FileStoreTable, plan: Bucketing.CrossPartition) {
  private val schema = table.schema
  private val columns = SparkTypes.physical(SparkTypes.toSparkStruct(schema.fields, withFieldIds = false))
  private val width = columns.length
  private val toKey = ColumnProjection(schema, schema.primaryKeys)
  private val toPartition = ColumnProjection(schema, schema.partitionKeys)
  private val hash = BucketFunctionType.bucketer(BucketFunctionType.Default,
    schema.primaryKeys.map(schema.field(_).dataType), schema.primaryKeys.map(schema.fieldNames.indexOf(_)))
  private val engine = MergeEngineSpec.of(table.name, schema).engine
  // The row with its partition columns taken from a partition's values (joined after the row).
  private val withPartition = UnsafeProjection.create(columns.indices.map { i =>
    val p = schema.partitionKeys.indexOf(schema.fieldNames(i))
    BoundReference(if (p < 0) i else width + p, columns(i).dataType, nullable = true)
  })
  private val joined = new JoinedRow()
  private val assigners = mutable.HashMap.empty[Int, KeyLocations]

  /** Hands `write` the (row, kind, bucket) writes a row makes: none, one, or a retraction and an insert. */
  def route(row: InternalRow, kind: Byte, write: (InternalRow, Byte, Int) => Unit): Unit = {
    val assigner = Bucketing.assignerOf(hash.hash(row), plan.assigners)
    val locations = assigners.getOrElseUpdate(assigner, plan.locations(table, assigner))
    val key = toKey(row)
    val found = locations.get(key)
    def in(partitionId: Int) = withPartition(joined(row, locations.partition(partitionId)))
    if (KeyValue.retracts(kind)) {
      found.foreach { case (partitionId, bucket) => write(in(partitionId), kind, bucket) }
    } else {
      val partitionId = locations.partitionId(toPartition(row))
      found match {
        case Some((`partitionId`, bucket)) => write(row, kind, bucket)
        case Some((old, bucket)) => engine match {
          case "deduplicate" =>
            write(in(old), KeyValue.Delete, bucket)
            insert(locations, key, partitionId, assigner, row, kind, write)
          case "first-row" => ()
          case _ => write(in(old), kind, bucket)
        }
        case None => insert(locations, key, partitionId, assigner, row, kind, write)
      }
    }
  }

  private def insert(locations: KeyLocations, key: UnsafeRow, partitionId: Int, assigner: Int, row: InternalRow,
      kind: Byte, write: (InternalRow, Byte, Int) => Unit): Unit = {
    val bucket = locations.newBucket(partitionId, _ % plan.assigners == assigner, plan.targetRowNum)
    locations.put(key, partitionId, bucket)
    write(row, kind, bucket)
  }
}
