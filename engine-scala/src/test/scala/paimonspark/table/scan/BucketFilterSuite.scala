package paimonspark.table.scan

import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.{DataField, DataTypes}
import paimonspark.format.metadata.TableSchema
import paimonspark.table.Predicate

/** Which buckets a filter can reach, on a table keyed by (k BIGINT, s STRING) in 4 buckets. */
class BucketFilterSuite extends AnyFunSuite {
  private val schema = TableSchema(0, Seq(DataField(0, "k", DataTypes.bigint.withNullable(false)),
    DataField(1, "s", DataTypes.string.withNullable(false)), DataField(2, "v", DataTypes.int)), 2, Nil, Seq("k", "s"),
    Map("bucket" -> "4"), None, 0L)
  private def eq(field: Int, v: Any) = Predicate.Compare(Predicate.Eq, field, v)
  /** Among the table's 4 buckets. */
  private def buckets(p: Predicate, s: TableSchema = schema) = BucketFilter.buckets("t", s, p).map(_(4))
  private val a = UTF8String.fromString("a")

  test("a key pinned by = or IN reaches only its buckets") {
    val one = buckets(Predicate.And(eq(0, 1L), eq(1, a)))
    assert(one.exists(_.size == 1))
    val some = buckets(Predicate.And(Predicate.In(0, Seq(1L, 2L, 3L)), eq(1, a)))
    assert(some.exists(b => b.nonEmpty && b.size <= 3 && one.get.subsetOf(b)))
  }

  test("a key not fully pinned, an OR or a dynamic-bucket table reaches every bucket") {
    assert(buckets(eq(0, 1L)).isEmpty)
    assert(buckets(Predicate.Or(Predicate.And(eq(0, 1L), eq(1, a)), eq(2, 5))).isEmpty)
    assert(buckets(Predicate.And(eq(0, 1L), eq(1, a)), schema.copy(options = Map("bucket" -> "-1"))).isEmpty)
  }

  test("contradicting values reach no bucket") {
    assert(buckets(Predicate.And(Predicate.And(eq(0, 1L), eq(0, 2L)), eq(1, a))).contains(Set.empty))
  }

  test("a rescaled partition's files are matched among their own bucket count") {
    val keys = Predicate.In(0, (1L to 20L).toSeq)
    val among = BucketFilter.buckets("t", schema, Predicate.And(keys, eq(1, a))).get
    assert(among(4).forall(_ < 4) && among(16).forall(_ < 16) && among(16).exists(_ >= 4))
    assert(among(1) == Set(0))
  }
}
