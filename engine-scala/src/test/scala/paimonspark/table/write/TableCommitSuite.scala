package paimonspark.table.write

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.CommitConflictException
import paimonspark.format._
import paimonspark.format.row._
import paimonspark.format.metadata._
import paimonspark.fs.{FileIO, HadoopConf, MotoServer}
import paimonspark.table.FileStoreTable

/** Commits racing for the same snapshot id, made deterministic by a filesystem that lets a rival go first. */
class TableCommitSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val conf = new HadoopConf(new Configuration())
  private lazy val moto = MotoServer.start()
  private var motoStarted = false

  override def afterAll(): Unit = if (motoStarted) moto.stop()
  private val schema = TableSchema(0, Seq(DataField(0, "a", DataTypes.int)), 0, Nil, Nil, Map.empty, None, 0L)

  private def entry(name: String, totalBuckets: Int = -1): ManifestEntry = ManifestEntry(FileKind.Add, BinaryRow.EmptySerialized, 0, totalBuckets,
    DataFileMeta(name, 10L, 1L, BinaryRow.EmptySerialized, BinaryRow.EmptySerialized, SimpleStats.Empty,
      SimpleStats.Empty, 0L, 0L, 0L, 0, Nil, None, Some(0L), None, Some(FileSource.Append), Some(Nil), None, None, None))

  /** A table whose filesystem runs `rival` once, right before the first attempt to publish `snapshot`. */
  private def racingTables(snapshot: String)(rival: FileStoreTable => Unit): (FileStoreTable, FileStoreTable) = {
    val paths = new TablePaths(new Path(Files.createTempDirectory("commit").toUri))
    val plain = new FileStoreTable(new FileIO(conf), paths, schema)
    assert(plain.schemaManager.publish(schema))
    var raced = false
    val io = new FileIO(conf) {
      override def publish(target: Path, bytes: Array[Byte]): Boolean = {
        if (target.getName == snapshot && !raced) {
          raced = true
          rival(plain)
        }
        super.publish(target, bytes)
      }
    }
    (plain, new FileStoreTable(io, paths, schema))
  }

  private def liveFiles(t: FileStoreTable): Set[String] = {
    val snapshot = t.snapshotManager.latest().get
    val store = t.newManifestStore()
    store.liveFiles(store.dataManifests(snapshot)).map(_.file.fileName).toSet
  }

  test("an append that loses the race re-bases and lands in the next snapshot") {
    val (plain, racing) = racingTables("snapshot-1")(t => new TableCommit(t, "rival").commit(Seq(entry("rival")), None))
    assert(new TableCommit(racing, "me").commit(Seq(entry("mine")), None).map(_.id).contains(2L))
    assert(liveFiles(plain) == Set("rival", "mine"))
    assert(plain.snapshotManager.read(2).deltaRecordCount == 1 && plain.snapshotManager.read(2).totalRecordCount == 2)
  }

  test("an overwrite whose files were removed meanwhile fails with a conflict and commits nothing") {
    val (plain, racing) = racingTables("snapshot-2")(t =>
      new TableCommit(t, "rival").commit(Seq(entry("rival")), Some(OverwriteScope.WholeTable)))
    new TableCommit(plain, "setup").commit(Seq(entry("old")), None)
    val error = intercept[CommitConflictException] {
      new TableCommit(racing, "me").commit(Seq(entry("mine")), Some(OverwriteScope.WholeTable))
    }
    assert(error.getMessage.contains("already removed") && error.getMessage.contains("old"))
    assert(plain.snapshotManager.latestId().contains(2L))
    assert(liveFiles(plain) == Set("rival"))
  }

  test("an overwrite that loses the race to an append replaces what is live when it commits") {
    val (plain, racing) =
      racingTables("snapshot-2")(t => new TableCommit(t, "rival").commit(Seq(entry("appended")), None))
    new TableCommit(plain, "setup").commit(Seq(entry("old")), None)
    assert(new TableCommit(racing, "me").commit(Seq(entry("mine")), Some(OverwriteScope.WholeTable)).map(_.id).contains(3L))
    assert(liveFiles(plain) == Set("mine"))
    assert(plain.snapshotManager.read(3).commitKind == CommitKind.Overwrite)
  }

  test("a rescale that loses the race to an append fails: the appended rows were not rewritten") {
    val (plain, racing) =
      racingTables("snapshot-2")(t => new TableCommit(t, "rival").commit(Seq(entry("appended", 2)), None))
    new TableCommit(plain, "setup").commit(Seq(entry("old", 2)), None)
    val read = Set(entry("old", 2).identifier)
    val error = intercept[CommitConflictException] {
      new TableCommit(racing, "rescale").commit(Seq(entry("rescaled", 4)), Some(OverwriteScope.PartitionsOf(read)))
    }
    assert(error.getMessage.contains("appended") && error.getMessage.contains("nothing was committed"))
    assert(liveFiles(plain) == Set("old", "appended"))
  }

  test("an append planned before a rescale committed fails: its files have the old bucket count") {
    val (plain, racing) = racingTables("snapshot-2")(t => new TableCommit(t, "rescale")
      .commit(Seq(entry("rescaled", 4)), Some(OverwriteScope.PartitionsOf(Set(entry("old", 2).identifier)))))
    new TableCommit(plain, "setup").commit(Seq(entry("old", 2)), None)
    val error = intercept[CommitConflictException] {
      new TableCommit(racing, "writer").commit(Seq(entry("late", 2)), None, bucketsPlannedAt = Some(1L))
    }
    assert(error.getMessage.contains("Total buckets of partition") && error.getMessage.contains("changed from 4 to 2"))
    assert(liveFiles(plain) == Set("rescaled"))
    // Planned after the rescale, with its count, the same append commits.
    assert(new TableCommit(plain, "writer").commit(Seq(entry("late", 4)), None, bucketsPlannedAt = Some(2L)).map(_.id).contains(3L))
  }

  test("the manifests of a lost attempt are removed again") {
    val (plain, racing) = racingTables("snapshot-1")(t => new TableCommit(t, "rival").commit(Seq(entry("rival")), None))
    new TableCommit(racing, "me").commit(Seq(entry("mine")), None)
    val referenced = (1L to 2L).flatMap { id =>
      val s = plain.snapshotManager.read(id)
      val store = plain.newManifestStore()
      Seq(s.baseManifestList, s.deltaManifestList) ++ store.dataManifests(s).map(_.fileName)
    }.toSet
    val onDisk = plain.io.list(plain.paths.manifestDir).map(_.getPath.getName).toSet
    assert(onDisk == referenced)
  }

  test("on S3, a commit whose snapshot landed but whose answer was lost counts as committed, once") {
    motoStarted = true
    moto.createBucket("commit-lost")
    val s3 = new HadoopConf(moto.s3aConf())
    val paths = new TablePaths(new Path("s3a://commit-lost/t"))
    val plain = new FileStoreTable(new FileIO(s3), paths, schema)
    assert(plain.schemaManager.publish(schema))
    // The SDK's retry of a PUT that landed: the store answers 412 to the same bytes.
    val lossy = new FileIO(s3) {
      override def publish(target: Path, bytes: Array[Byte]): Boolean = {
        if (target.getName.startsWith("snapshot-")) super.publish(target, bytes)
        super.publish(target, bytes)
      }
    }
    assert(new TableCommit(new FileStoreTable(lossy, paths, schema), "me").commit(Seq(entry("mine")), None).map(_.id).contains(1L))
    assert(plain.snapshotManager.latestId().contains(1L) && plain.snapshotManager.read(1).commitUser == "me")
    assert(liveFiles(plain) == Set("mine"))
    assert(new TableCommit(plain, "next").commit(Seq(entry("next")), None).map(_.id).contains(2L))
    assert(liveFiles(plain) == Set("mine", "next"))
  }
}
