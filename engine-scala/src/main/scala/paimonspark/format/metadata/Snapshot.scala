package paimonspark.format.metadata

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode

/** The kinds of commit a snapshot records. */
object CommitKind {
  val Append = "APPEND"
  val Compact = "COMPACT"
  val Overwrite = "OVERWRITE"
  val Analyze = "ANALYZE"
}

/** The content of `snapshot/snapshot-<id>` (version 3). Unknown keys are kept for tags and copies. */
final case class Snapshot(
    id: Long,
    schemaId: Long,
    baseManifestList: String,
    baseManifestListSize: Option[Long],
    deltaManifestList: String,
    deltaManifestListSize: Option[Long],
    changelogManifestList: Option[String],
    changelogManifestListSize: Option[Long],
    indexManifest: Option[String],
    commitUser: String,
    commitIdentifier: Long,
    commitKind: String,
    timeMillis: Long,
    totalRecordCount: Long,
    deltaRecordCount: Long,
    changelogRecordCount: Option[Long],
    watermark: Option[Long],
    statistics: Option[String],
    properties: Map[String, String],
    nextRowId: Option[Long])

object SnapshotJson {
  val Version = 3
  /** The commit identifier of every batch commit (`BatchWriteBuilder.COMMIT_IDENTIFIER`). */
  val BatchCommitIdentifier: Long = Long.MaxValue

  def write(s: Snapshot): String = Json.render(toNode(s))

  def toNode(s: Snapshot): ObjectNode = {
    val n = Json.obj()
    n.put("version", Version)
    n.put("id", s.id)
    n.put("schemaId", s.schemaId)
    n.put("baseManifestList", s.baseManifestList)
    s.baseManifestListSize.foreach(n.put("baseManifestListSize", _))
    n.put("deltaManifestList", s.deltaManifestList)
    s.deltaManifestListSize.foreach(n.put("deltaManifestListSize", _))
    s.changelogManifestList.foreach(n.put("changelogManifestList", _))
    s.changelogManifestListSize.foreach(n.put("changelogManifestListSize", _))
    s.indexManifest.foreach(n.put("indexManifest", _))
    n.put("commitUser", s.commitUser)
    n.put("commitIdentifier", s.commitIdentifier)
    n.put("commitKind", s.commitKind)
    n.put("timeMillis", s.timeMillis)
    n.put("totalRecordCount", s.totalRecordCount)
    n.put("deltaRecordCount", s.deltaRecordCount)
    s.changelogRecordCount.foreach(n.put("changelogRecordCount", _))
    s.watermark.foreach(n.put("watermark", _))
    s.statistics.foreach(n.put("statistics", _))
    if (s.properties.nonEmpty) Json.putStringMap(n, "properties", s.properties)
    s.nextRowId.foreach(n.put("nextRowId", _))
    n
  }

  def read(text: String): Snapshot = fromNode(Json.parse(text))

  def fromNode(n: JsonNode): Snapshot = {
    def long(name: String): Option[Long] = Json.field(n, name).map(_.asLong())
    def str(name: String): Option[String] = Json.field(n, name).map(_.asText())
    def req(name: String): JsonNode = Json.required(n, name)
    Snapshot(
      id = req("id").asLong(),
      schemaId = req("schemaId").asLong(),
      baseManifestList = req("baseManifestList").asText(),
      baseManifestListSize = long("baseManifestListSize"),
      deltaManifestList = req("deltaManifestList").asText(),
      deltaManifestListSize = long("deltaManifestListSize"),
      changelogManifestList = str("changelogManifestList"),
      changelogManifestListSize = long("changelogManifestListSize"),
      indexManifest = str("indexManifest"),
      commitUser = req("commitUser").asText(),
      commitIdentifier = req("commitIdentifier").asLong(),
      commitKind = req("commitKind").asText(),
      timeMillis = req("timeMillis").asLong(),
      totalRecordCount = long("totalRecordCount").getOrElse(0L),
      deltaRecordCount = long("deltaRecordCount").getOrElse(0L),
      changelogRecordCount = long("changelogRecordCount"),
      watermark = long("watermark"),
      statistics = str("statistics"),
      properties = Json.stringMap(Json.field(n, "properties")),
      nextRowId = long("nextRowId"))
  }
}
