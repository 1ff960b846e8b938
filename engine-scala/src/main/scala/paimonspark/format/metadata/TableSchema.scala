package paimonspark.format.metadata

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode

import scala.jdk.CollectionConverters._

import paimonspark.format.{DataField, DataType, DataTypes}

/** One version of a table's schema: the content of `schema/schema-<id>`. */
final case class TableSchema(
    id: Long,
    fields: Seq[DataField],
    highestFieldId: Int,
    partitionKeys: Seq[String],
    primaryKeys: Seq[String],
    options: Map[String, String],
    comment: Option[String],
    timeMillis: Long) {

  def fieldNames: Seq[String] = fields.map(_.name)

  def field(name: String): DataField =
    fields.find(_.name == name).getOrElse(throw new IllegalArgumentException(s"no column '$name'"))

  def partitionFields: Seq[DataField] = partitionKeys.map(field)

  /** Columns stored in data files but not partition columns. */
  def nonPartitionFields: Seq[DataField] = fields.filterNot(f => partitionKeys.contains(f.name))

  def partitionRowType: Seq[DataType] = partitionFields.map(_.dataType)
}

/** The JSON codec of `schema/schema-N` (version 3), field order as Java writes it. */
object SchemaJson {
  val Version = 3

  def write(s: TableSchema): String = {
    val node = Json.obj()
    node.put("version", Version)
    node.put("id", s.id)
    val fields = node.putArray("fields")
    s.fields.foreach(f => fields.add(TypeJson.writeField(f)))
    node.put("highestFieldId", s.highestFieldId)
    val pks = node.putArray("partitionKeys"); s.partitionKeys.foreach(pks.add)
    val pk = node.putArray("primaryKeys"); s.primaryKeys.foreach(pk.add)
    Json.putStringMap(node, "options", s.options)
    s.comment.foreach(node.put("comment", _))
    node.put("timeMillis", s.timeMillis)
    Json.render(node)
  }

  def read(text: String): TableSchema = {
    val node = Json.parse(text)
    val version = Json.field(node, "version").map(_.asInt()).getOrElse(1)
    val fields = Json.required(node, "fields").elements().asScala.map(TypeJson.readField).toSeq
    val options = Json.stringMap(Json.field(node, "options"))
    // Older schema versions imply defaults that were later written out (SchemaSerializer).
    val compatOptions: Map[String, String] =
      (if (version <= 1 && !options.contains("bucket")) Map("bucket" -> "1") else Map.empty[String, String]) ++
        (if (version <= 2 && !options.contains("file.format")) Map("file.format" -> "orc") else Map.empty[String, String])
    TableSchema(
      id = Json.required(node, "id").asLong(),
      fields = fields,
      highestFieldId = Json.required(node, "highestFieldId").asInt(),
      partitionKeys = strings(Json.field(node, "partitionKeys")),
      primaryKeys = strings(Json.field(node, "primaryKeys")),
      options = compatOptions ++ options,
      comment = Json.field(node, "comment").map(_.asText()),
      timeMillis = Json.field(node, "timeMillis").map(_.asLong()).getOrElse(0L))
  }

  /**
   * Paimon's `Schema`, a table's definition as a REST catalog is sent it and answers it: the fields, keys,
   * options and comment of a schema file without its id, highest field id and time.
   */
  def definition(s: TableSchema): ObjectNode = {
    val node = Json.obj()
    val fields = node.putArray("fields")
    s.fields.foreach(f => fields.add(TypeJson.writeField(f)))
    val pks = node.putArray("partitionKeys"); s.partitionKeys.foreach(pks.add)
    val pk = node.putArray("primaryKeys"); s.primaryKeys.foreach(pk.add)
    Json.putStringMap(node, "options", s.options)
    s.comment.foreach(node.put("comment", _))
    node
  }

  /** Schema `id` of a definition; its highest field id that of its fields, nested ones too, as Java's `TableSchema.create`. */
  def fromDefinition(node: JsonNode, id: Long, timeMillis: Long): TableSchema = {
    val fields = Json.required(node, "fields").elements().asScala.map(TypeJson.readField).toSeq
    val highest = (fields.map(_.id) ++ fields.flatMap(f => DataTypes.nestedFieldIds(f.dataType))).maxOption.getOrElse(-1)
    TableSchema(id, fields, highest, strings(Json.field(node, "partitionKeys")), strings(Json.field(node, "primaryKeys")),
      Json.stringMap(Json.field(node, "options")), Json.field(node, "comment").map(_.asText()), timeMillis)
  }

  private def strings(node: Option[JsonNode]): Seq[String] =
    node.map(_.elements().asScala.map(_.asText()).toSeq).getOrElse(Nil)
}
