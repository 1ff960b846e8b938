package paimonspark.lsm

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.scalatest.funsuite.AnyFunSuite

/** A writer's buffer merged newest first: rows are (arrival, kind, key, value, bucket). */
class NewestVersionsSuite extends AnyFunSuite {
  import KeyValue._

  private def kv(arrival: Long, kind: Byte, key: Long, value: String, bucket: Int): InternalRow =
    new GenericInternalRow(Array[Any](arrival, kind, key, value, bucket))
  private val key = IntegralKey(2, wide = true)

  // As the sorter hands them: one row object, repointed at each row.
  private def reusing(rows: Seq[InternalRow]): Iterator[InternalRow] = {
    val shared = new GenericInternalRow(5)
    rows.iterator.map { r => (0 until 5).foreach(i => shared.update(i, r.get(i, null))); shared }
  }

  private def byBucketKey(newestFirst: Boolean) = Ordering.by[InternalRow, (Int, Long, Long)](r =>
    (r.getInt(4), r.getLong(2), if (newestFirst) -r.getLong(0) else r.getLong(0)))

  private def newest(rows: Seq[InternalRow], ignoreDelete: Boolean = false): Seq[(Int, Long, Long, Byte)] =
    NewestVersions.of(reusing(rows.sorted(byBucketKey(newestFirst = true))), 4, key, ignoreDelete)
      .map(r => (r.getInt(4), r.getLong(2), r.getLong(0), r.getByte(1))).toSeq

  test("each key's newest version, retraction or not, and a key per bucket") {
    val rows = Seq(kv(0, Insert, 7, "a", 1), kv(1, Insert, 7, "b", 0), kv(2, UpdateAfter, 7, "c", 1),
      kv(3, Delete, 8, "d", 1), kv(4, Insert, 8, "e", 1), kv(5, Delete, 9, "f", 0))
    assert(newest(rows) == Seq((0, 7L, 1L, Insert), (0, 9L, 5L, Delete), (1, 7L, 2L, UpdateAfter), (1, 8L, 4L, Insert)))
  }

  test("with ignore-delete, the newest version that is not a retraction, and none if all are") {
    val rows = Seq(kv(0, Insert, 1, "a", 0), kv(1, Delete, 1, "a", 0), kv(2, UpdateBefore, 2, "b", 0),
      kv(3, Delete, 2, "b", 0))
    assert(newest(rows, ignoreDelete = true) == Seq((0, 1L, 0L, Insert)))
  }

  test("the same results as the deduplicate engine over the buffer sorted oldest first") {
    val random = new Random(56)
    val kinds = Seq(Insert, UpdateBefore, UpdateAfter, Delete)
    for (ignoreDelete <- Seq(false, true); _ <- 1 to 20) {
      val rows = (0 until 300).map(i =>
        kv(i, kinds(random.nextInt(4)), random.nextInt(60).toLong - 30, s"v$i", random.nextInt(3)))
      val sortedOldest = rows.sorted(byBucketKey(newestFirst = false))
      val expected = new SortedRunMerge(Seq(sortedOldest.iterator), Ordering.by[InternalRow, (Int, Long)](r =>
        (r.getInt(4), r.getLong(2))), new DeduplicateEngine(ignoreDelete), dropRetractions = false, uniqueKeys = false)
        .map(r => (r.getInt(4), r.getLong(2), r.getLong(0), r.getByte(1))).toSeq
      assert(newest(rows, ignoreDelete) == expected)
    }
  }
}
