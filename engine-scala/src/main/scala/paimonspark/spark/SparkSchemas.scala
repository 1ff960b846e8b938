package paimonspark.spark

import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.sql.connector.catalog.Column
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{MetadataBuilder, StructField, StructType}

import paimonspark.UnsupportedFeatureException
import paimonspark.format.{DataField, SparkTypes}
import paimonspark.format.metadata.TableSchema
import paimonspark.table.schema.SchemaChanges

/** Turns Spark's CREATE TABLE arguments into a Paimon schema, and a schema back into Spark's view. */
object SparkSchemas {
  /** Spark's own table properties, which are not Paimon options. */
  val ReservedProperties: Set[String] =
    Set("provider", "location", "comment", "owner", "external", "is_managed_location", "path", "option.path")

  def create(table: String, columns: Seq[Column], partitions: Seq[Transform], properties: Map[String, String]): TableSchema = {
    columns.find(_.generationExpression() != null).foreach { c =>
      throw new UnsupportedFeatureException(s"table $table: column '${c.name()}' has a generated value, which is not " +
        "supported", "generated column")
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
    val defaults = columns.map(c => Option(c.defaultValue()).map(_.getSql))
    val fields = SparkTypes.toPaimonFields(struct, () => counter.getAndIncrement()).zip(defaults).map {
      case (f, default) => f.copy(defaultValue = default)
    }
    fromFields(table, fields, partitionKeys, properties)
  }

  /**
   * The schema of a new table of `fields`: Paimon's `primary-key` property gives its primary key,
   * `comment` its comment, and the properties that are not Spark's own its options.
   */
  def fromFields(table: String, fields: Seq[DataField], partitionKeys: Seq[String], properties: Map[String, String])
      : TableSchema = {
    properties.get("provider").filterNot(_.equalsIgnoreCase("paimon")).foreach { p =>
      throw new UnsupportedFeatureException(s"table $table: a Paimon catalog only creates Paimon tables, not USING $p " +
        "(a DataFrame or stream writer that creates the table uses spark.sql.sources.default unless given " +
        ".format(\"paimon\"))", "provider")
    }
    fields.foreach(ColumnDefaults.check(table, _))
    SchemaChanges.create(table, fields, partitionKeys, properties -- ReservedProperties, properties.get("comment"))
  }

  /** The table's schema as Spark sees it, with each column's default where Spark looks for it. */
  def sparkSchema(schema: TableSchema): StructType =
    StructType(SparkTypes.toSparkStruct(schema.fields, withFieldIds = false).fields.zip(schema.fields).map {
      case (s, f) => f.defaultValue.fold(s)(d =>
        s.copy(metadata = new MetadataBuilder().withMetadata(s.metadata).putString(ColumnDefaults.MetadataKey, d).build()))
    })

  /** The partition columns of the table's Spark schema, in partition order. */
  def partitionSchema(schema: TableSchema): StructType = {
    val all = sparkSchema(schema)
    StructType(schema.partitionKeys.map(all(_)))
  }
}
