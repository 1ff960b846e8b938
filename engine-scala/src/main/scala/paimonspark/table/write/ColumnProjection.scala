package paimonspark.table.write

import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}

import paimonspark.format.SparkTypes
import paimonspark.format.metadata.TableSchema

/** Projects a row of a table's columns, in the order its writers receive them, onto some of those columns. */
object ColumnProjection {
  def apply(schema: TableSchema, names: Seq[String]): UnsafeProjection = {
    val columns = SparkTypes.physical(SparkTypes.toSparkStruct(schema.fields, withFieldIds = false))
    UnsafeProjection.create(names.map { n =>
      val i = schema.fieldNames.indexOf(n)
      BoundReference(i, columns(i).dataType, nullable = true)
    })
  }
}
