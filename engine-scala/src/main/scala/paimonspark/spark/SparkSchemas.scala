package paimonspark.spark

import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.sql.connector.catalog.Column
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{StructField, StructType}

import paimonspark.UnsupportedFeatureException
import paimonspark.format.{SparkTypes, TableSchema}
import paimonspark.table.schema.SchemaChanges

/** Turns Spark's CREATE TABLE arguments into a Paimon schema, and a schema back into Spark's view. */
object SparkSchemas {
  /** Spark's own table properties, which are not Paimon options. */
  val ReservedProperties: Set[String] =
    Set("provider", "location", "comment", "owner", "external", "is_managed_location", "path", "option.path")

  def create(table: String, columns: Seq[Column], partitions: Seq[Transform], properties: Map[String, String]): TableSchema = {
    properties.get("provider").filterNot(_.equalsIgnoreCase("paimon")).foreach { p =>
      throw new UnsupportedFeatureException(s"table $table: a Paimon catalog only creates Paimon tables, not USING $p " +
        "(a DataFrame or stream writer that creates the table uses spark.sql.sources.default unless given " +
        ".format(\"paimon\"))", "provider")
    }
    columns.find(c => c.defaultValue() != null || c.generationExpression() != null).foreach { c =>
      throw new UnsupportedFeatureException(s"table $table: column '${c.name()}' has a default or generated value, " +
        "which is not supported yet")
    }
    val partitionKeys = partitions.map { t =>
      val refs = t.references().map(_.fieldNames().toSeq)
      if (t.name() != "identity" || refs.length != 1 || refs.head.length != 1) {
        throw new UnsupportedFeatureException(s"table $table: partitioning by ${t.describe()} is not supported; " +
          "partition by plain columns")
      }
      refs.head.head
    }
    val struct = StructType(columns.map { c =>
      val f = StructField(c.name(), c.dataType(), c.nullable())
      Option(c.comment()).fold(f)(f.withComment)
    })
    val counter = new AtomicInteger(0)
    val fields = SparkTypes.toPaimonFields(struct, () => counter.getAndIncrement())
    SchemaChanges.create(table, fields, partitionKeys, properties -- ReservedProperties, properties.get("comment"))
  }

  def sparkSchema(schema: TableSchema): StructType = SparkTypes.toSparkStruct(schema.fields, withFieldIds = false)
}
