package paimonspark.format.iceberg

import java.nio.{ByteBuffer, ByteOrder}

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.{ObjectNode, TextNode}
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.format.{ArrayType, AtomicType, DataField, DataType, MapType, MultisetType, NestedFieldIds, RowType, TypeRoot}
import paimonspark.format.metadata.{Json, TableSchema}

/**
 * Paimon's types as Iceberg's schema JSON names them, with Paimon's field ids (list elements and map
 * keys and values by [[NestedFieldIds]]), and values as Iceberg's single-value serialization writes
 * bounds: what Paimon's `IcebergDataField` and `IcebergConversions` do.
 */
object IcebergTypes {
  /** Why `t` has no Iceberg type (TIME, TIMESTAMP below precision 3, MULTISET), or None. */
  def unsupported(t: DataType): Option[String] = t match {
    case a: AtomicType => a.root match {
      case TypeRoot.Time => Some("TIME has no Iceberg type")
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz if a.precision < 3 =>
        Some(s"${a.sql}: Iceberg timestamps hold precision 3 to 9")
      case TypeRoot.Other(name) => Some(s"$name has no Iceberg type")
      case _ => None
    }
    case a: ArrayType => unsupported(a.element)
    case m: MapType => unsupported(m.key).orElse(unsupported(m.value))
    case _: MultisetType => Some("MULTISET has no Iceberg type")
    case r: RowType => r.fields.iterator.flatMap(f => unsupported(f.dataType)).nextOption()
  }

  /** The schema as one entry of Iceberg's `schemas`. */
  def schema(s: TableSchema): ObjectNode = {
    val node = Json.obj()
    node.put("type", "struct")
    node.put("schema-id", s.id.toInt)
    fields(node, s.fields)
    node
  }

  private def fields(parent: ObjectNode, fields: Seq[DataField]): Unit = {
    val array = parent.putArray("fields")
    fields.foreach { f =>
      val node = array.addObject()
      node.put("id", f.id)
      node.put("name", f.name)
      node.put("required", !f.dataType.nullable)
      node.set[JsonNode]("type", typeOf(f.dataType, f.id, 0))
      f.description.foreach(node.put("doc", _))
    }
  }

  private def typeOf(t: DataType, fieldId: Int, depth: Int): JsonNode = t match {
    case a: AtomicType => new TextNode(a.root match {
      case TypeRoot.Boolean => "boolean"
      case TypeRoot.TinyInt | TypeRoot.SmallInt | TypeRoot.Int => "int"
      case TypeRoot.BigInt => "long"
      case TypeRoot.Float => "float"
      case TypeRoot.Double => "double"
      case TypeRoot.Date => "date"
      case TypeRoot.Char | TypeRoot.VarChar => "string"
      case TypeRoot.Binary | TypeRoot.VarBinary => "binary"
      case TypeRoot.Decimal => s"decimal(${a.precision}, ${a.scale})"
      case TypeRoot.Timestamp => if (a.precision >= 7) "timestamp_ns" else "timestamp"
      case TypeRoot.TimestampLtz => if (a.precision >= 7) "timestamptz_ns" else "timestamptz"
      case other => throw new UnsupportedOperationException(s"${other.keyword} has no Iceberg type")
    })
    case a: ArrayType =>
      val node = Json.obj()
      node.put("type", "list")
      node.put("element-id", NestedFieldIds.element(fieldId, depth + 1))
      node.put("element-required", !a.element.nullable)
      node.set[JsonNode]("element", typeOf(a.element, fieldId, depth + 1))
      node
    case m: MapType =>
      val node = Json.obj()
      node.put("type", "map")
      node.put("key-id", NestedFieldIds.key(fieldId, depth + 1))
      node.set[JsonNode]("key", typeOf(m.key, fieldId, depth + 1))
      node.put("value-id", NestedFieldIds.value(fieldId, depth + 1))
      node.put("value-required", !m.value.nullable)
      node.set[JsonNode]("value", typeOf(m.value, fieldId, depth + 1))
      node
    case r: RowType =>
      val node = Json.obj()
      node.put("type", "struct")
      fields(node, r.fields)
      node
    case other => throw new UnsupportedOperationException(s"${other.sql} has no Iceberg type")
  }

  /** `value` (Spark's internal representation, as stats rows hold it) as Iceberg serializes a bound. */
  def bound(t: DataType, value: Any): Array[Byte] = {
    val a = t.asInstanceOf[AtomicType]
    def le(n: Int) = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN)
    a.root match {
      case TypeRoot.Boolean => Array[Byte](if (value.asInstanceOf[Boolean]) 1 else 0)
      case TypeRoot.TinyInt => le(4).putInt(value.asInstanceOf[Byte].toInt).array()
      case TypeRoot.SmallInt => le(4).putInt(value.asInstanceOf[Short].toInt).array()
      case TypeRoot.Int | TypeRoot.Date => le(4).putInt(value.asInstanceOf[Int]).array()
      case TypeRoot.BigInt => le(8).putLong(value.asInstanceOf[Long]).array()
      case TypeRoot.Float => le(4).putFloat(value.asInstanceOf[Float]).array()
      case TypeRoot.Double => le(8).putDouble(value.asInstanceOf[Double]).array()
      case TypeRoot.Char | TypeRoot.VarChar => value.asInstanceOf[UTF8String].getBytes
      case TypeRoot.Binary | TypeRoot.VarBinary => value.asInstanceOf[Array[Byte]]
      case TypeRoot.Decimal => value.asInstanceOf[Decimal].toJavaBigDecimal.unscaledValue().toByteArray
      // Stats rows hold microseconds; nanosecond timestamps are bounded at the microsecond.
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz =>
        val micros = value.asInstanceOf[Long]
        le(8).putLong(if (a.precision >= 7) micros * 1000L else micros).array()
      case other => throw new UnsupportedOperationException(s"${other.keyword} has no Iceberg bound")
    }
  }

  /** A bound as Iceberg serializes it, back in Spark's internal representation: [[bound]]'s inverse. */
  def fromBound(t: DataType, bytes: Array[Byte]): Any = {
    val a = t.asInstanceOf[AtomicType]
    def le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
    a.root match {
      case TypeRoot.Boolean => bytes(0) != 0
      case TypeRoot.TinyInt => le.getInt.toByte
      case TypeRoot.SmallInt => le.getInt.toShort
      case TypeRoot.Int | TypeRoot.Date => le.getInt
      case TypeRoot.BigInt => le.getLong
      case TypeRoot.Float => le.getFloat
      case TypeRoot.Double => le.getDouble
      case TypeRoot.Char | TypeRoot.VarChar => UTF8String.fromBytes(bytes)
      case TypeRoot.Binary | TypeRoot.VarBinary => bytes
      case TypeRoot.Decimal =>
        Decimal(new java.math.BigDecimal(new java.math.BigInteger(bytes), a.scale), a.precision, a.scale)
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz => if (a.precision >= 7) le.getLong / 1000L else le.getLong
      case other => throw new UnsupportedOperationException(s"${other.keyword} has no Iceberg bound")
    }
  }

  /** Iceberg's spelling of a Paimon data file's format in a manifest. */
  def fileFormat(fileName: String): String = fileName.substring(fileName.lastIndexOf('.') + 1).toLowerCase
}
