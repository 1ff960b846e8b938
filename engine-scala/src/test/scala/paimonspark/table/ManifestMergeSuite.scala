package paimonspark.table

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format._
import paimonspark.format.metadata._
import paimonspark.format.row._
import paimonspark.fs.{FileIO, HadoopConf}

/** Paimon's rules for merging a new base list's manifests: full compaction past a size threshold, else minor merges. */
class ManifestMergeSuite extends AnyFunSuite {
  private val schema = TableSchema(0, Seq(DataField(0, "a", DataTypes.int), DataField(1, "p", DataTypes.int)), 1,
    Seq("p"), Nil, Map.empty, None, 0L)
  private val partitionTypes = schema.partitionRowType.map(_.withNullable(true))
  private val store = new ManifestStore(new FileIO(new HadoopConf(new Configuration())),
    new TablePaths(new Path(Files.createTempDirectory("manifests").toUri)), schema)

  private def entry(kind: Int, name: String, p: Int): ManifestEntry =
    ManifestEntry(kind, BinaryRow.serialize(partitionTypes, new GenericInternalRow(Array[Any](p))), 0, -1,
      DataFileMeta(name, 10L, 1L, BinaryRow.EmptySerialized, BinaryRow.EmptySerialized, SimpleStats.Empty,
        SimpleStats.Empty, 0L, 0L, 0L, 0, Nil, None, Some(0L), None, Some(FileSource.Append), Some(Nil), None, None, None))
  private def add(name: String, p: Int) = entry(FileKind.Add, name, p)
  private def delete(name: String, p: Int) = entry(FileKind.Delete, name, p)
  private def manifest(entries: ManifestEntry*): ManifestFileMeta = store.writeManifests(entries).head

  private def merge(manifests: Seq[ManifestFileMeta], target: Long, minCount: Int, threshold: Long) =
    new ManifestMerge(store, partitionTypes, target, minCount, threshold).merge(manifests)
  private def entries(manifests: Seq[ManifestFileMeta]): Seq[(Int, String)] =
    manifests.flatMap(m => store.readManifest(m.fileName)).map(e => (e.kind, e.file.fileName))

  test("small manifests and those with DELETE entries that add up to the threshold are fully compacted") {
    val base = Seq(manifest(add("a", 1), add("b", 1)), manifest(add("c", 2)), manifest(delete("a", 1), add("d", 3)))
    val mustChange = base.map(_.fileSize).sum
    val compacted = merge(base, target = 1L << 20, minCount = 30, threshold = mustChange)
    assert(compacted.size == 1 && entries(compacted) == Seq(FileKind.Add -> "b", FileKind.Add -> "c", FileKind.Add -> "d"))
    // A byte short of the threshold: a minor compaction, which leaves fewer than merge-min-count as they are.
    assert(merge(base, target = 1L << 20, minCount = 30, threshold = mustChange + 1) == base)
  }

  test("a full compaction keeps full manifests without DELETE entries outside the deleted files' partitions, or untouched") {
    val full = Seq(manifest(add("x", 9)), manifest(add("y", 2)), manifest(add("a", 1), add("b", 1)))
    val target = full.map(_.fileSize).min
    val deletes = manifest(delete("a", 1), delete("z", 3), add("c", 2))
    val base = full :+ manifest(add("z", 3)) :+ deletes
    // Partition 9 is outside [1, 3]: not even read. Partition 2 is read but none of its files went: kept.
    // Deleted files went from the manifest of partition 1, which is rewritten, and from the small one of 3.
    val compacted = merge(base, target, minCount = 30, threshold = 1)
    assert(compacted.take(2) == full.take(2))
    assert(entries(compacted.drop(2)) == Seq(FileKind.Add -> "b", FileKind.Add -> "c"))
    assert(store.liveFiles(compacted).map(_.file.fileName).sorted == Seq("b", "c", "x", "y"))
  }

  test("a minor compaction merges runs that reach the target size, and the rest from merge-min-count on") {
    val small = (1 to 3).map(i => manifest(add(s"f$i", i)))
    // The first two reach the target together and become one manifest; the third stays, one of fewer than 30.
    val merged = merge(small, small.take(2).map(_.fileSize).sum, minCount = 30, threshold = Long.MaxValue)
    assert(merged.size == 2 && entries(merged.take(1)).map(_._2) == Seq("f1", "f2") && merged(1) == small(2))
    // A DELETE whose ADD is in an earlier run stays; three small ones left at the end are merged at a minimum of 3.
    val tail = Seq(manifest(delete("f1", 1)), manifest(add("g", 5)), manifest(add("h", 6)))
    val all = merge(Seq(manifest(add("f1", 1)), manifest(add("f0", 1))) ++ tail, Long.MaxValue, 3, Long.MaxValue)
    assert(all.size == 1 && entries(all) == Seq(FileKind.Add -> "f0", FileKind.Add -> "g", FileKind.Add -> "h"))
    assert(merge(tail, Long.MaxValue, minCount = 4, threshold = Long.MaxValue) == tail)
    assert(entries(merge(tail, Long.MaxValue, minCount = 3, threshold = Long.MaxValue)) ==
      Seq(FileKind.Delete -> "f1", FileKind.Add -> "g", FileKind.Add -> "h"))
  }
}
