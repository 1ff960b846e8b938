package paimonspark.format.metadata

import java.time.{Duration, LocalDateTime}

import org.scalatest.funsuite.AnyFunSuite

class TagJsonSuite extends AnyFunSuite {
  private val snapshot = Snapshot(
    id = 4, schemaId = 0, baseManifestList = "manifest-list-a-0", baseManifestListSize = Some(10L),
    deltaManifestList = "manifest-list-a-1", deltaManifestListSize = Some(9L), changelogManifestList = None,
    changelogManifestListSize = None, indexManifest = None, commitUser = "u", commitIdentifier = Long.MaxValue,
    commitKind = CommitKind.Append, timeMillis = 1700000000000L, totalRecordCount = 3, deltaRecordCount = 3,
    changelogRecordCount = None, watermark = None, statistics = None, properties = Map.empty, nextRowId = Some(0L))

  test("a retained tag carries Jackson's LocalDateTime array and decimal seconds, and round-trips") {
    val tag = Tag(snapshot, Some(LocalDateTime.of(2026, 11, 23, 10, 5, 3, 123456000)), Some(Duration.ofDays(1)))
    val text = TagJson.write(tag)
    assert(text.replaceAll("\\s", "").contains("\"tagCreateTime\":[2026,11,23,10,5,3,123456000]"))
    assert(text.contains("\"tagTimeRetained\" : 86400.000000000"))
    assert(TagJson.read(text) == tag)
  }

  test("trailing zero parts of the create time are left out, as Jackson does") {
    val text = TagJson.write(Tag(snapshot, Some(LocalDateTime.of(2026, 11, 23, 10, 0)), Some(Duration.ofSeconds(5))))
    assert(text.replaceAll("\\s", "").contains("\"tagCreateTime\":[2026,11,23,10,0]"))
    assert(TagJson.read(text).createTime.contains(LocalDateTime.of(2026, 11, 23, 10, 0)))
  }

  test("a tag without retention is the plain snapshot JSON; pypaimon's float seconds read") {
    val plain = TagJson.write(Tag(snapshot, Some(LocalDateTime.now()), None))
    assert(!plain.contains("tagCreateTime") && !plain.contains("tagTimeRetained"))
    assert(TagJson.read(plain) == Tag(snapshot, None, None))
    val python = SnapshotJson.write(snapshot).dropRight(1) + ""","tagCreateTime":[2026,11,23,10,0,0,123000000],"tagTimeRetained":86400.5}"""
    val read = TagJson.read(python)
    assert(read.timeRetained.contains(Duration.ofMillis(86400500L)))
    assert(read.createTime.contains(LocalDateTime.of(2026, 11, 23, 10, 0, 0, 123000000)))
  }
}
