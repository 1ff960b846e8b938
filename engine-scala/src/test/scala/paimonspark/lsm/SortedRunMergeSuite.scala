package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.scalatest.funsuite.AnyFunSuite

/** Merging hand-made sorted runs: rows are (sequence, kind, key, value). */
class SortedRunMergeSuite extends AnyFunSuite {
  private def kv(seq: Long, kind: Byte, key: Int, value: String): InternalRow =
    new GenericInternalRow(Array[Any](seq, kind, key, value))
  private val byKey: Ordering[InternalRow] = Ordering.by[InternalRow, Int](_.getInt(2))

  private def merge(runs: Seq[Seq[InternalRow]], ignoreDelete: Boolean = false): Seq[(Int, String)] =
    new SortedRunMerge(runs.map(_.iterator), byKey, new DeduplicateEngine(ignoreDelete)).map(r =>
      (r.getInt(2), r.get(3, null).asInstanceOf[String])).toSeq

  import KeyValue._

  test("the highest sequence number of a key wins, whichever run holds it") {
    val old = Seq(kv(1, Insert, 1, "a1"), kv(2, Insert, 2, "b1"), kv(3, Insert, 4, "d1"))
    val newer = Seq(kv(5, UpdateAfter, 1, "a2"), kv(6, Insert, 3, "c1"))
    val newest = Seq(kv(4, Insert, 2, "b-older-than-run-order"), kv(9, UpdateAfter, 4, "d3"))
    assert(merge(Seq(newest, old, newer)) == Seq(1 -> "a2", 2 -> "b-older-than-run-order", 3 -> "c1", 4 -> "d3"))
  }

  test("a key whose newest version is a retraction is gone") {
    val base = Seq(kv(1, Insert, 1, "a"), kv(2, Insert, 2, "b"))
    val changes = Seq(kv(3, Delete, 1, "a"), kv(4, UpdateBefore, 2, "b"))
    assert(merge(Seq(base, changes)) == Nil)
    assert(merge(Seq(base, changes, Seq(kv(5, Insert, 1, "again")))) == Seq(1 -> "again"))
  }

  test("with ignore-delete, retractions never win") {
    val base = Seq(kv(1, Insert, 1, "a"))
    val delete = Seq(kv(2, Delete, 1, "a"))
    assert(merge(Seq(base, delete), ignoreDelete = true) == Seq(1 -> "a"))
    assert(merge(Seq(delete), ignoreDelete = true) == Nil)
  }

  test("writers keep a merged retraction so it still hides older files") {
    val runs = Seq(Seq(kv(1, Insert, 1, "a")), Seq(kv(2, Delete, 1, "a")))
    val kept = new SortedRunMerge(runs.map(_.iterator), byKey, new DeduplicateEngine(false), dropRetractions = false).toSeq
    assert(kept.map(r => (KeyValue.sequence(r), KeyValue.kind(r))) == Seq(2L -> Delete))
  }

  test("a version ordering other than the sequence number decides which version is newest") {
    // As with sequence.field: the value column orders versions, whatever the sequence numbers say.
    val byValue: Ordering[InternalRow] = Ordering.by[InternalRow, String](_.get(3, null).asInstanceOf[String])
    val runs = Seq(Seq(kv(1, Insert, 1, "z")), Seq(kv(2, Insert, 1, "m")))
    val merged = new SortedRunMerge(runs.map(_.iterator), byKey, new DeduplicateEngine(false), byValue).toSeq
    assert(merged.map(_.get(3, null)) == Seq("z"))
  }

  test("runs may reuse one row object, as file readers do: a run is only advanced once its row is used") {
    def reusing(rows: Seq[InternalRow]): Iterator[InternalRow] = {
      val shared = new GenericInternalRow(4)
      rows.iterator.map { r => (0 until 4).foreach(i => shared.update(i, r.get(i, null))); shared }
    }
    val old = Seq(kv(1, Insert, 1, "a1"), kv(2, Insert, 2, "b1"), kv(3, Insert, 3, "c1"))
    val newer = Seq(kv(4, UpdateAfter, 2, "b2"), kv(5, Insert, 4, "d1"))
    val newest = Seq(kv(6, Delete, 1, "a1"), kv(7, UpdateAfter, 2, "b3"), kv(8, UpdateAfter, 4, "d2"))
    val merged = new SortedRunMerge(Seq(old, newer, newest).map(reusing), byKey, new DeduplicateEngine(false))
      .map(r => (r.getInt(2), r.get(3, null).asInstanceOf[String])).toSeq
    assert(merged == Seq(2 -> "b3", 3 -> "c1", 4 -> "d2"))
  }

  test("empty runs and a single run pass through") {
    assert(merge(Seq(Nil, Seq(kv(1, Insert, 7, "x")), Nil)) == Seq(7 -> "x"))
    assert(merge(Nil) == Nil)
  }

  test("a numeric key merges as the row orderings do, and as a map of newest versions says") {
    val rng = new scala.util.Random(5)
    (1 to 50).foreach { _ =>
      val sequences = rng.shuffle((1 to 500).toList).iterator
      val runs = Seq.fill(1 + rng.nextInt(5)) {
        rng.shuffle((-40 to 40).toList).take(rng.nextInt(60)).sorted.map { k =>
          kv(sequences.next().toLong, if (rng.nextInt(5) == 0) Delete else Insert, k, s"v$k")
        }
      }
      val newest = runs.flatten.groupBy(_.getInt(2)).values.map(_.maxBy(KeyValue.sequence)).toSeq
      val expected = newest.filterNot(KeyValue.isRetract).map(r => (r.getInt(2), KeyValue.sequence(r))).sortBy(_._1)
      Seq(None, Some(IntegralKey(2, wide = false))).foreach { key =>
        val merged = new SortedRunMerge(runs.map(_.iterator), byKey, new DeduplicateEngine(false), integralKey = key)
          .map(r => (r.getInt(2), KeyValue.sequence(r))).toSeq
        assert(merged == expected, s"integral key $key")
      }
    }
  }
}
