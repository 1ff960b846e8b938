package paimonspark.format.metadata

import org.scalatest.funsuite.AnyFunSuite

class SnapshotJsonSuite extends AnyFunSuite {
  private val snapshot = Snapshot(
    id = 7, schemaId = 1, baseManifestList = "manifest-list-a-0", baseManifestListSize = Some(100L),
    deltaManifestList = "manifest-list-a-1", deltaManifestListSize = Some(90L), changelogManifestList = None,
    changelogManifestListSize = None, indexManifest = Some("index-manifest-x"), commitUser = "u",
    commitIdentifier = Long.MaxValue, commitKind = CommitKind.Append, timeMillis = 1700000000000L,
    totalRecordCount = 10, deltaRecordCount = 3, changelogRecordCount = None, watermark = None, statistics = None,
    properties = Map("k" -> "v"), nextRowId = Some(0L))

  test("a snapshot round-trips and omits absent optional keys") {
    val text = SnapshotJson.write(snapshot)
    assert(SnapshotJson.read(text) == snapshot)
    assert(!text.contains("changelogManifestList") && !text.contains("watermark"))
    assert(text.contains("\"commitIdentifier\" : 9223372036854775807"))
  }

  test("pypaimon's snapshot with extra keys reads") {
    val text = """{"version":3,"id":1,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d",
                 |"totalRecordCount":5,"deltaRecordCount":5,"commitUser":"x","commitIdentifier":9223372036854775807,
                 |"commitKind":"APPEND","timeMillis":1,"uuid":"abc","writerVersion":"python-2.1.0"}""".stripMargin
    val s = SnapshotJson.read(text)
    assert(s.id == 1 && s.totalRecordCount == 5 && s.baseManifestListSize.isEmpty)
  }
}
