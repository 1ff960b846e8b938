package paimonspark.format.parquet

import org.apache.parquet.schema.{ConversionPatterns, LogicalTypeAnnotation, MessageType, PrimitiveType, Type, Types}
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.parquet.schema.Type.Repetition

import paimonspark.format.{ArrayType, AtomicType, DataField, DataType, DataTypes, MapType, MultisetType, NestedFieldIds,
  RowType, TypeRoot}

/**
 * The Parquet schema of a data file holding Paimon fields, as Paimon's Parquet writer lays it out
 * (`ParquetSchemaConverter`): every node carries a field id, the elements, keys and values of
 * arrays and maps ids derived from their column's ([[NestedFieldIds]]); map keys are required;
 * TIME is INT32 `TIME(MILLIS)`; and timestamps take their physical type from their precision
 * ([[TimestampUnit]]), which Paimon's readers decode by.
 */
object ParquetSchema {
  val MessageName = "paimon_schema"

  def of(fields: Seq[DataField]): MessageType = new MessageType(MessageName, fields.map(node): _*)

  private def node(f: DataField): Type = node(f.name, f.dataType, f.id, 0)

  /** Nested elements are converted with their column's id and one more level of depth, then given their own id. */
  private def node(name: String, t: DataType, fieldId: Int, depth: Int): Type = {
    val repetition = if (t.nullable) Repetition.OPTIONAL else Repetition.REQUIRED
    t match {
      case a: AtomicType => primitive(a, repetition).named(name).withId(fieldId)
      case a: ArrayType =>
        val element = node("element", a.element, fieldId, depth + 1).withId(NestedFieldIds.element(fieldId, depth + 1))
        ConversionPatterns.listOfElements(repetition, name, element).withId(fieldId)
      case m: MapType => map(name, repetition, m.key, m.value, fieldId, depth)
      case m: MultisetType => map(name, repetition, m.element, DataTypes.int.withNullable(false), fieldId, depth)
      case r: RowType => Types.buildGroup(repetition).addFields(r.fields.map(node): _*).named(name).withId(fieldId)
    }
  }

  private def map(name: String, repetition: Repetition, key: DataType, value: DataType, fieldId: Int, depth: Int): Type = {
    // Parquet has no null map keys: a nullable key type is written as required.
    val keyNode = node("key", key.withNullable(false), fieldId, depth + 1).withId(NestedFieldIds.key(fieldId, depth + 1))
    val valueNode = node("value", value, fieldId, depth + 1).withId(NestedFieldIds.value(fieldId, depth + 1))
    ConversionPatterns.mapType(repetition, name, "key_value", keyNode, valueNode).withId(fieldId)
  }

  private def primitive(t: AtomicType, repetition: Repetition): Types.PrimitiveBuilder[PrimitiveType] = {
    def of(p: PrimitiveType.PrimitiveTypeName) = Types.primitive(p, repetition)
    t.root match {
      case TypeRoot.Boolean => of(BOOLEAN)
      case TypeRoot.TinyInt => of(INT32).as(LogicalTypeAnnotation.intType(8, true))
      case TypeRoot.SmallInt => of(INT32).as(LogicalTypeAnnotation.intType(16, true))
      case TypeRoot.Int => of(INT32)
      case TypeRoot.BigInt => of(INT64)
      case TypeRoot.Float => of(FLOAT)
      case TypeRoot.Double => of(DOUBLE)
      case TypeRoot.Char | TypeRoot.VarChar => of(BINARY).as(LogicalTypeAnnotation.stringType())
      case TypeRoot.Binary | TypeRoot.VarBinary => of(BINARY)
      case TypeRoot.Date => of(INT32).as(LogicalTypeAnnotation.dateType())
      case TypeRoot.Time => of(INT32).as(LogicalTypeAnnotation.timeType(true, TimeUnit.MILLIS))
      case TypeRoot.Decimal =>
        val annotation = LogicalTypeAnnotation.decimalType(t.scale, t.precision)
        if (t.precision <= 9) of(INT32).as(annotation)
        else if (t.precision <= 18) of(INT64).as(annotation)
        else of(FIXED_LEN_BYTE_ARRAY).length(decimalBytes(t.precision)).as(annotation)
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz =>
        val utc = t.root == TypeRoot.TimestampLtz
        TimestampUnit.of(t.precision) match {
          case TimestampUnit.Millis => of(INT64).as(LogicalTypeAnnotation.timestampType(utc, TimeUnit.MILLIS))
          case TimestampUnit.Micros => of(INT64).as(LogicalTypeAnnotation.timestampType(utc, TimeUnit.MICROS))
          case TimestampUnit.Int96 => of(INT96)
        }
      case other => throw new UnsupportedOperationException(s"Paimon type ${other.keyword} is not written to Parquet")
    }
  }

  /** The fewest bytes whose two's complement holds every unscaled value of `precision` digits. */
  def decimalBytes(precision: Int): Int =
    Iterator.from(1).find(n => BigInt(2).pow(8 * n - 1) >= BigInt(10).pow(precision)).get
}
