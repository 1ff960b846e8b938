package paimonspark.format.iceberg

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode

import paimonspark.format.metadata.Json

/** One Iceberg snapshot: Paimon's snapshot `id`, which is its sequence number too. */
final case class IcebergSnapshot(id: Long, parent: Option[Long], timestampMs: Long, operation: String,
    manifestList: String, schemaId: Int)

/**
 * An Iceberg table's `v<N>.metadata.json` as Paimon's `IcebergMetadata` writes it: one identity partition
 * spec (id 0), no sort order, tags as `refs` of type tag. `schemas` and `specFields` are kept as JSON, as
 * Iceberg's readers want them.
 */
final case class IcebergMetadata(formatVersion: Int, tableUuid: String, location: String, lastSequenceNumber: Long,
    lastUpdatedMs: Long, lastColumnId: Int, schemas: Seq[ObjectNode], currentSchemaId: Int, specFields: Seq[ObjectNode],
    lastPartitionId: Int, snapshots: Seq[IcebergSnapshot], currentSnapshotId: Long, refs: Map[String, Long]) {

  def currentSnapshot: IcebergSnapshot = snapshots.find(_.id == currentSnapshotId).getOrElse(
    throw new IllegalStateException(s"Iceberg metadata of $location lists no current snapshot $currentSnapshotId"))

  def toJson: String = {
    val node = Json.obj()
    node.put("format-version", formatVersion)
    node.put("table-uuid", tableUuid)
    node.put("location", location)
    node.put("last-sequence-number", lastSequenceNumber)
    node.put("last-updated-ms", lastUpdatedMs)
    node.put("last-column-id", lastColumnId)
    val schemaArray = node.putArray("schemas")
    schemas.foreach(schemaArray.add(_))
    node.put("current-schema-id", currentSchemaId)
    val spec = node.putArray("partition-specs").addObject()
    spec.put("spec-id", 0)
    val fields = spec.putArray("fields")
    specFields.foreach(fields.add(_))
    node.put("default-spec-id", 0)
    node.put("last-partition-id", lastPartitionId)
    val order = node.putArray("sort-orders").addObject()
    order.put("order-id", 0)
    order.putArray("fields")
    node.put("default-sort-order-id", 0)
    val snapshotArray = node.putArray("snapshots")
    snapshots.foreach { s =>
      val n = snapshotArray.addObject()
      n.put("sequence-number", s.id)
      n.put("snapshot-id", s.id)
      s.parent.foreach(n.put("parent-snapshot-id", _))
      n.put("timestamp-ms", s.timestampMs)
      n.putObject("summary").put("operation", s.operation)
      n.put("manifest-list", s.manifestList)
      n.put("schema-id", s.schemaId)
    }
    node.put("current-snapshot-id", currentSnapshotId)
    node.putObject("properties")
    val refNode = node.putObject("refs")
    refs.toSeq.sortBy(_._1).foreach { case (name, id) =>
      val r = refNode.putObject(name)
      r.put("snapshot-id", id)
      r.put("type", "tag")
      r.put("max-ref-age-ms", Long.MaxValue)
    }
    Json.render(node)
  }
}

object IcebergMetadata {
  def parse(text: String): IcebergMetadata = {
    val node = Json.parse(text)
    def int(n: JsonNode, k: String) = n.get(k).asInt()
    def long(n: JsonNode, k: String) = n.get(k).asLong()
    def objects(n: JsonNode) = Option(n).map(_.elements().asScala.map(_.asInstanceOf[ObjectNode]).toSeq).getOrElse(Nil)
    val spec = objects(node.get("partition-specs")).find(s => int(s, "spec-id") == 0)
    IcebergMetadata(int(node, "format-version"), node.get("table-uuid").asText(), node.get("location").asText(),
      long(node, "last-sequence-number"), long(node, "last-updated-ms"), int(node, "last-column-id"),
      objects(node.get("schemas")), int(node, "current-schema-id"), spec.map(s => objects(s.get("fields"))).getOrElse(Nil),
      int(node, "last-partition-id"),
      objects(node.get("snapshots")).map { s =>
        IcebergSnapshot(long(s, "snapshot-id"), Option(s.get("parent-snapshot-id")).map(_.asLong()),
          long(s, "timestamp-ms"), s.get("summary").get("operation").asText(), s.get("manifest-list").asText(),
          int(s, "schema-id"))
      },
      long(node, "current-snapshot-id"),
      Option(node.get("refs")).map(_.properties().asScala.map(e => e.getKey -> e.getValue.get("snapshot-id").asLong()).toMap)
        .getOrElse(Map.empty))
  }
}
