package paimonspark.spark.system

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.format.metadata.SchemaJson
import paimonspark.table.FileStoreTable

/** `t$schemas`: every schema version, with its fields, keys and options as JSON text. */
final class SchemasTable(table: FileStoreTable, displayName: String) extends SystemTable(table, displayName) {
  import Cells._

  override val fields: StructType = StructType(Seq(
    StructField("schema_id", LongType, nullable = false),
    StructField("fields", StringType, nullable = false),
    StructField("partition_keys", StringType, nullable = false),
    StructField("primary_keys", StringType, nullable = false),
    StructField("options", StringType, nullable = false),
    StructField("comment", StringType),
    StructField("update_time", TimestampNTZType, nullable = false)))

  override def rows(at: FileStoreTable, hints: FilterHints): Seq[InternalRow] = {
    val schemas = at.schemaManager
    val ids = hints.longs("schema_id").map(_.toSeq.sorted).getOrElse(schemas.listIds())
    val mapper = new ObjectMapper()
    ids.filter(schemas.exists).map(schemas.read).map { s =>
      val json = mapper.readTree(SchemaJson.write(s))
      def text(field: String) = str(mapper.writeValueAsString(json.get(field)))
      InternalRow(s.id, text("fields"), text("partitionKeys"), text("primaryKeys"), text("options"), str(s.comment),
        localTime(s.timeMillis))
    }
  }
}
