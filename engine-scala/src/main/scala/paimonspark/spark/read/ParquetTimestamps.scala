package paimonspark.spark.read

import org.apache.spark.sql.types.{ArrayType => SArray, DataType => SType, IntegerType, MapType => SMap, StructField,
  StructType, TimestampType}

import paimonspark.format.{ArrayType, AtomicType, DataField, DataType, MapType, MultisetType, RowType, SparkTypes,
  TypeRoot}

/**
 * Parquet timestamps as Spark's Parquet reader can give them. Paimon writes TIMESTAMP(p) columns of
 * more than 6 digits as INT96, which Spark's reader reads as TIMESTAMP but refuses as TIMESTAMP_NTZ.
 * Paimon's INT96 holds the wall clock as if it were UTC, so such columns are requested as TIMESTAMP
 * and cast back in UTC, which keeps every microsecond; INT64 files (whatever their unit) read the
 * same way, so the files of any writer do. Spark's reader decodes INT64 timestamps by the unit their
 * annotation states, so no other column needs this.
 */
object ParquetTimestamps {
  /** The Spark schema to ask Spark's Parquet reader for, for files holding `fields`. */
  def requested(fields: Seq[DataField]): StructType = StructType(fields.map(f => StructField(f.name, turned(f.dataType),
    f.dataType.nullable)))

  private def turned(t: DataType): SType = t match {
    case a: AtomicType if a.root == TypeRoot.Timestamp && a.precision > 6 => TimestampType
    case a: ArrayType => SArray(turned(a.element), a.element.nullable)
    case m: MapType => SMap(turned(m.key), turned(m.value), m.value.nullable)
    case m: MultisetType => SMap(turned(m.element), IntegerType, valueContainsNull = false)
    case r: RowType => requested(r.fields)
    case other => SparkTypes.physicalType(other)
  }
}
