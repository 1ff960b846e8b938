package paimonspark.catalog.rest

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode

import paimonspark.format.metadata.{Json, SchemaJson, Snapshot, SnapshotJson, TableSchema, TypeJson}
import paimonspark.table.PartitionStatistics
import paimonspark.table.schema.SchemaChange
import paimonspark.table.schema.SchemaChange._

/** A table as a REST catalog answers for it (`GetTableResponse`): its uuid, where its files are, its schema. */
final case class RestTable(uuid: String, path: String, external: Boolean, schema: TableSchema)

/** The JSON bodies of the requests and answers the REST catalog exchanges, as Paimon 1.4.2 spells them. */
object RestMessages {
  def identifier(db: String, table: String): ObjectNode = {
    val node = Json.obj()
    node.put("database", db)
    node.put("object", table)
    node
  }

  def createDatabase(name: String, options: Map[String, String]): ObjectNode = {
    val node = Json.obj()
    node.put("name", name)
    Json.putStringMap(node, "options", options)
    node
  }

  def alterDatabase(removed: Set[String], updates: Map[String, String]): ObjectNode = {
    val node = Json.obj()
    val removals = node.putArray("removals")
    removed.toSeq.sorted.foreach(removals.add)
    Json.putStringMap(node, "updates", updates)
    node
  }

  def createTable(db: String, table: String, schema: TableSchema): ObjectNode = {
    val node = Json.obj()
    node.set[JsonNode]("identifier", identifier(db, table))
    node.set[JsonNode]("schema", SchemaJson.definition(schema))
    node
  }

  def renameTable(from: (String, String), to: (String, String)): ObjectNode = {
    val node = Json.obj()
    node.set[JsonNode]("source", identifier(from._1, from._2))
    node.set[JsonNode]("destination", identifier(to._1, to._2))
    node
  }

  /** A table's answer; its schema is taken to have been written `now`, as Java's catalog takes it. */
  def table(node: JsonNode): RestTable = RestTable(
    Json.required(node, "id").asText(), Json.required(node, "path").asText(),
    Json.field(node, "isExternal").exists(_.asBoolean()),
    SchemaJson.fromDefinition(Json.required(node, "schema"), Json.required(node, "schemaId").asLong(),
      System.currentTimeMillis()))

  /** The audit fields of a table's answer (owner, createdAt, ...), which Java shows among its options. */
  def auditOptions(node: JsonNode): Map[String, String] =
    Seq("owner", "createdAt", "createdBy", "updatedAt", "updatedBy").flatMap(k => Json.field(node, k).map(k -> _.asText())).toMap

  /** The latest snapshot in a `GET .../snapshot` answer. */
  def snapshot(node: JsonNode): Snapshot =
    SnapshotJson.fromNode(Json.required(Json.required(node, "snapshot"), "snapshot"))

  def commit(tableUuid: String, snapshot: Snapshot, statistics: Seq[PartitionStatistics]): ObjectNode = {
    val node = Json.obj()
    node.put("tableId", tableUuid)
    node.set[JsonNode]("snapshot", SnapshotJson.toNode(snapshot))
    val stats = node.putArray("statistics")
    statistics.foreach { s =>
      val entry = stats.addObject()
      val spec = entry.putObject("spec")
      s.spec.foreach { case (k, v) => spec.put(k, v) }
      entry.put("recordCount", s.recordCount)
      entry.put("fileSizeInBytes", s.fileSizeInBytes)
      entry.put("fileCount", s.fileCount)
      entry.put("lastFileCreationTime", s.lastFileCreationTime)
      entry.put("totalBuckets", s.totalBuckets)
    }
    node
  }

  def committed(node: JsonNode): Boolean = Json.field(node, "success").exists(_.asBoolean())

  /** `POST .../rollback`: Paimon's `Instant`, a snapshot or a tag, and the snapshot that must still be the latest. */
  def rollback(snapshotId: Long, tag: Option[String], from: Long): ObjectNode = {
    val node = Json.obj()
    val instant = node.putObject("instant")
    tag match {
      case Some(name) => instant.put("type", "tag"); instant.put("tagName", name)
      case None => instant.put("type", "snapshot"); instant.put("snapshotId", snapshotId)
    }
    node.put("fromSnapshot", from)
    node
  }

  /** `POST .../partitions/mark`: partitions by their values keyed by column, in partition order. */
  def markDone(specs: Seq[Seq[(String, String)]]): ObjectNode = {
    val node = Json.obj()
    val array = node.putArray("specs")
    specs.foreach { spec =>
      val entry = array.addObject()
      spec.foreach { case (k, v) => entry.put(k, v) }
    }
    node
  }

  /** `POST .../branches`: a new branch, empty or from a tag. */
  def createBranch(name: String, fromTag: Option[String]): ObjectNode = {
    val node = Json.obj()
    node.put("branch", name)
    fromTag.fold(node.putNull("fromTag"))(node.put("fromTag", _))
    node
  }

  /** `POST .../branches/<b>/rename`. */
  def renameBranch(to: String): ObjectNode = {
    val node = Json.obj()
    node.put("toBranch", to)
    node
  }

  /** `POST .../tables/<t>`: the changes as Paimon's `SchemaChange` actions. */
  def alterTable(changes: Seq[SchemaChange]): ObjectNode = {
    val node = Json.obj()
    val array = node.putArray("changes")
    changes.foreach(c => array.add(action(c)))
    node
  }

  private def action(change: SchemaChange): ObjectNode = {
    val node = Json.obj()
    def names(path: Seq[String]): Unit = { val a = node.putArray("fieldNames"); path.foreach(a.add) }
    def text(key: String, value: Option[String]): Unit = value.fold(node.putNull(key))(node.put(key, _))
    def kind(name: String): Unit = node.put("action", name)
    change match {
      case SetOption(k, v) => kind("setOption"); node.put("key", k); node.put("value", v)
      case RemoveOption(k) => kind("removeOption"); node.put("key", k)
      case UpdateComment(c) => kind("updateComment"); text("comment", c)
      case AddColumn(path, t, comment, position) =>
        kind("addColumn"); names(path); node.set[JsonNode]("dataType", TypeJson.writeType(t)); text("comment", comment)
        position match {
          case Some(p) => node.set[JsonNode]("move", move(path.last, p))
          case None => node.putNull("move")
        }
      case RenameColumn(path, newName) => kind("renameColumn"); names(path); node.put("newName", newName)
      case DropColumn(path) => kind("dropColumn"); names(path)
      case UpdateColumnType(path, t) =>
        kind("updateColumnType"); names(path); node.set[JsonNode]("newDataType", TypeJson.writeType(t))
        node.put("keepNullability", true)
      case UpdateColumnNullability(path, nullable) =>
        kind("updateColumnNullability"); names(path); node.put("newNullability", nullable)
      case UpdateColumnComment(path, c) => kind("updateColumnComment"); names(path); text("newComment", c)
      case UpdateColumnDefault(path, d) => kind("updateColumnDefaultValue"); names(path); text("newDefaultValue", d)
      case UpdateColumnPosition(column, p) => kind("updateColumnPosition"); node.set[JsonNode]("move", move(column, p))
    }
    node
  }

  private def move(column: String, position: Position): ObjectNode = {
    val node = Json.obj()
    node.put("fieldName", column)
    position match {
      case First => node.putNull("referenceFieldName"); node.put("type", "FIRST")
      case After(other) => node.put("referenceFieldName", other); node.put("type", "AFTER")
    }
    node
  }

  def strings(node: JsonNode, field: String): Seq[String] =
    Json.field(node, field).map(_.elements().asScala.map(_.asText()).toSeq).getOrElse(Nil)
}
