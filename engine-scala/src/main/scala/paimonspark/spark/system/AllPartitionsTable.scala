package paimonspark.spark.system

import java.time.ZoneId

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.catalog.Catalog

/**
 * `sys.partitions`: one row per partition of every partitioned table, from its latest snapshot's live
 * files as `t$partitions` counts them, named `k1=v1/k2=v2`. Paimon's filesystem catalog never marks a
 * partition done here, so `done` is false.
 */
final class AllPartitionsTable(catalog: Catalog, displayName: String) extends CatalogSystemTable(displayName) {
  import Cells._

  override val fields: StructType = StructType(CatalogSystemTables.tableColumns ++ Seq(
    StructField("partition_name", StringType),
    StructField("record_count", LongType),
    StructField("file_size_in_bytes", LongType),
    StructField("file_count", LongType),
    StructField("last_file_creation_time", LongType),
    StructField("done", BooleanType)))

  override def rows(): Seq[InternalRow] =
    CatalogSystemTables.allTables(catalog).filter(_.table.schema.partitionKeys.nonEmpty).flatMap { e =>
      val schema = e.table.schema
      val named = PartitionsTable.groups(e.table, perBucket = false).map { g =>
        MetadataText.spec(g.partition, schema.partitionKeys, schema.partitionRowType, e.table.options.partitionDefaultName)
          .getOrElse("") -> g
      }
      named.sortBy(_._1).map { case (name, g) =>
        // Epoch millis of the stored wall clock read in the JVM's zone, as Java's DataFileMeta.creationTimeEpochMillis.
        val created = g.lastCreation.map(_.atZone(ZoneId.systemDefault()).toInstant.toEpochMilli)
        InternalRow(str(e.database), str(e.name), str(name), g.recordCount, g.fileSize, g.files.size.toLong, long(created),
          false)
      }
    }
}
