package paimonspark.format.metadata

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode

import scala.jdk.CollectionConverters._

import paimonspark.format.{ArrayType, AtomicType, DataField, DataType, MapType, MultisetType, RowType, TypeRoot}

/** Paimon's JSON form of data types and fields (`DataTypeJsonParser`, `DataField` serializer). */
object TypeJson {
  import TypeRoot._

  def writeField(f: DataField): ObjectNode = {
    val node = Json.obj()
    node.put("id", f.id)
    node.put("name", f.name)
    node.set[JsonNode]("type", writeType(f.dataType))
    f.description.foreach(node.put("description", _))
    f.defaultValue.foreach(node.put("defaultValue", _))
    node
  }

  def writeType(t: DataType): JsonNode = {
    def composite(kind: String): ObjectNode = {
      val node = Json.obj()
      node.put("type", if (t.nullable) kind else s"$kind NOT NULL")
      node
    }
    t match {
      case a: AtomicType => Json.mapper.getNodeFactory.textNode(a.sql)
      case a: ArrayType =>
        val n = composite("ARRAY"); n.set[JsonNode]("element", writeType(a.element)); n
      case m: MultisetType =>
        val n = composite("MULTISET"); n.set[JsonNode]("element", writeType(m.element)); n
      case m: MapType =>
        val n = composite("MAP")
        n.set[JsonNode]("key", writeType(m.key))
        n.set[JsonNode]("value", writeType(m.value))
        n
      case r: RowType =>
        val n = composite("ROW")
        val fields = n.putArray("fields")
        r.fields.foreach(f => fields.add(writeField(f)))
        n
    }
  }

  def readField(node: JsonNode): DataField = DataField(
    id = Json.required(node, "id").asInt(),
    name = Json.required(node, "name").asText(),
    dataType = readType(Json.required(node, "type")),
    description = Json.field(node, "description").map(_.asText()),
    defaultValue = Json.field(node, "defaultValue").map(_.asText()))

  def readType(node: JsonNode): DataType =
    if (node.isTextual) parseAtomic(node.asText())
    else {
      val (kind, nullable) = splitNullability(Json.required(node, "type").asText())
      kind.toUpperCase match {
        case "ARRAY" => ArrayType(readType(Json.required(node, "element")), nullable)
        case "MULTISET" => MultisetType(readType(Json.required(node, "element")), nullable)
        case "MAP" => MapType(readType(Json.required(node, "key")), readType(Json.required(node, "value")), nullable)
        case "ROW" => RowType(Json.required(node, "fields").elements().asScala.map(readField).toSeq, nullable)
        case other => AtomicType(Other(other), Nil, nullable)
      }
    }

  private val NotNull = "(?i)(.*?)\\s+NOT\\s+NULL\\s*".r
  private val Nullable = "(?i)(.*?)\\s+NULL\\s*".r
  private val Spelled = "(?i)\\s*([A-Z_]+(?:\\s+PRECISION)?)\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?\\s*(.*)".r

  private def splitNullability(text: String): (String, Boolean) = text match {
    case NotNull(base) => (base.trim, false)
    case Nullable(base) => (base.trim, true)
    case base => (base.trim, true)
  }

  /** Parses an atomic type's SQL spelling, accepting the aliases Java's parser accepts. */
  def parseAtomic(text: String): AtomicType = {
    val (base, nullable) = splitNullability(text)
    base match {
      case Spelled(word, p1, p2, rest) =>
        val args = Seq(p1, p2).filter(_ != null).map(_.toInt)
        val suffix = rest.trim.toUpperCase
        def one(default: Int): Seq[Int] = Seq(args.headOption.getOrElse(default))
        val (root, params) = word.toUpperCase.replaceAll("\\s+", " ") match {
          case "BOOLEAN" => (Boolean, Nil)
          case "TINYINT" => (TinyInt, Nil)
          case "SMALLINT" => (SmallInt, Nil)
          case "INT" | "INTEGER" => (Int, Nil)
          case "BIGINT" => (BigInt, Nil)
          case "FLOAT" => (Float, Nil)
          case "DOUBLE" | "DOUBLE PRECISION" => (Double, Nil)
          case "DATE" => (Date, Nil)
          case "STRING" => (VarChar, Seq(MaxLength))
          case "BYTES" => (VarBinary, Seq(MaxLength))
          case "DECIMAL" | "NUMERIC" | "DEC" =>
            (Decimal, Seq(args.headOption.getOrElse(10), if (args.size > 1) args(1) else 0))
          case "CHAR" => (Char, one(1))
          case "VARCHAR" => (VarChar, one(1))
          case "BINARY" => (Binary, one(1))
          case "VARBINARY" => (VarBinary, one(1))
          case "TIME" => (Time, one(0))
          case "TIMESTAMP" if suffix == "WITH LOCAL TIME ZONE" => (TimestampLtz, one(6))
          case "TIMESTAMP" => (Timestamp, one(6))
          case "TIMESTAMP_LTZ" => (TimestampLtz, one(6))
          case _ => (Other(base), Nil)
        }
        AtomicType(root, params, nullable)
      case _ => AtomicType(Other(base), Nil, nullable)
    }
  }
}
