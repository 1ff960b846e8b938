package paimonspark.spark.system

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.table.FileStoreTable

/**
 * `t$statistics`: the table statistics the current (or time-travelled) snapshot names
 * (`statistics/stat-*`, written by Paimon's ANALYZE); empty when it names none.
 */
final class StatisticsTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("snapshot_id", LongType, nullable = false),
    StructField("schema_id", LongType, nullable = false),
    StructField("mergedRecordCount", LongType),
    StructField("mergedRecordSize", LongType),
    StructField("colstat", StringType)))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] =
    at.currentSnapshot().flatMap(_.statistics).toSeq.map { file =>
      val mapper = new ObjectMapper()
      val json = mapper.readTree(at.io.readUtf8(new Path(at.paths.statisticsDir, file)))
      def long(name: String): Any = Option(json.get(name)).filterNot(_.isNull).map(n => Long.box(n.asLong())).orNull
      InternalRow(json.get("snapshotId").asLong(), json.get("schemaId").asLong(), long("mergedRecordCount"), long("mergedRecordSize"),
        str(Option(json.get("colStats")).map(mapper.writeValueAsString)))
    }
}
