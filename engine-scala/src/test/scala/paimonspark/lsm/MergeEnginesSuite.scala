package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.{DataField, DataTypes, TableSchema}

/** The partial-update and aggregation engines on hand-made histories of one key. */
class MergeEnginesSuite extends AnyFunSuite {
  import KeyValue._

  // (sequence, kind, key, a, b)
  private val schema = StructType(Seq(StructField("_SEQUENCE_NUMBER", LongType), StructField("_VALUE_KIND", ByteType),
    StructField("k", IntegerType), StructField("a", LongType), StructField("b", StringType)))
  private def row(seq: Long, kind: Byte, a: Any, b: String): InternalRow =
    new GenericInternalRow(Array[Any](seq, kind, 1, a, Option(b).map(UTF8String.fromString).orNull))

  /** The engine's result as a batch read sees it: a merged retraction means the key is gone. */
  private def fold(spec: MergeEngineSpec, rows: InternalRow*): Option[(Any, Any)] = {
    val engine = spec.create(schema, Seq(2))
    engine.reset()
    rows.foreach(engine.add)
    engine.result().filterNot(KeyValue.isRetract).map(r => (if (r.isNullAt(3)) null else r.getLong(3), if (r.isNullAt(4)) null else r.getUTF8String(4).toString))
  }

  private def spec(engine: String, options: (String, String)*): MergeEngineSpec = {
    val fields = Seq(DataField(0, "k", DataTypes.int.withNullable(false)), DataField(1, "a", DataTypes.bigint),
      DataField(2, "b", DataTypes.string))
    MergeEngineSpec.of("t", TableSchema(0, fields, 2, Nil, Seq("k"), (options :+ ("merge-engine" -> engine)).toMap,
      None, 0L))
  }

  test("partial-update keeps the newest non-null value of each column") {
    val pu = spec("partial-update")
    assert(fold(pu, row(1, Insert, 1L, null), row(2, Insert, null, "x"), row(3, UpdateAfter, 5L, null)) == Some((5L, "x")))
    assert(fold(pu, row(1, Insert, null, null)) == Some((null, null)))
  }

  test("partial-update retractions: refused by default, skipped with ignore-delete, removing with remove-record-on-delete") {
    intercept[UnsupportedFeatureException](fold(spec("partial-update"), row(1, Insert, 1L, "x"), row(2, Delete, 1L, "x")))
    assert(fold(spec("partial-update", "ignore-delete" -> "true"), row(1, Insert, 1L, "x"), row(2, Delete, null, null)) ==
      Some((1L, "x")))
    val remove = spec("partial-update", "partial-update.remove-record-on-delete" -> "true")
    assert(fold(remove, row(1, Insert, 1L, "x"), row(2, Delete, 1L, "x")).isEmpty)
    assert(fold(remove, row(1, Insert, 1L, "x"), row(2, Delete, 1L, "x"), row(3, Insert, null, "y")) == Some((null, "y")))
    assert(fold(remove, row(1, Insert, 1L, "x"), row(2, UpdateBefore, 1L, "x")) == Some((1L, "x")))
  }

  test("aggregation folds each column with its function; the default is last_non_null_value") {
    val agg = spec("aggregation", "fields.a.aggregate-function" -> "sum")
    assert(fold(agg, row(1, Insert, 2L, "x"), row(2, Insert, 3L, null), row(3, Insert, null, "z")) == Some((5L, "z")))
    val maxFirst = spec("aggregation", "fields.a.aggregate-function" -> "max", "fields.b.aggregate-function" -> "first_value")
    assert(fold(maxFirst, row(1, Insert, 2L, null), row(2, Insert, 9L, "late"), row(3, Insert, 4L, "later")) ==
      Some((9L, null)))
    val minFirstNonNull = spec("aggregation", "fields.a.aggregate-function" -> "min",
      "fields.b.aggregate-function" -> "first_non_null_value")
    assert(fold(minFirstNonNull, row(1, Insert, 7L, null), row(2, Insert, 3L, "b"), row(3, Insert, 5L, "c")) ==
      Some((3L, "b")))
    assert(fold(spec("aggregation", "fields.a.aggregate-function" -> "product"), row(1, Insert, 3L, null),
      row(2, Insert, 4L, null)) == Some((12L, null)))
  }

  test("aggregation takes a retracted value back out of a sum, and refuses where it cannot") {
    val agg = spec("aggregation", "fields.a.aggregate-function" -> "sum")
    // b's default last_non_null_value is cleared by the retraction of "x", as in Paimon.
    assert(fold(agg, row(1, Insert, 10L, "x"), row(2, UpdateBefore, 4L, "x")) == Some((6L, null)))
    assert(fold(agg, row(1, Insert, 10L, "x"), row(2, UpdateBefore, 4L, null)) == Some((6L, "x")))
    intercept[UnsupportedFeatureException] {
      fold(spec("aggregation", "fields.a.aggregate-function" -> "max"), row(1, Insert, 10L, "x"), row(2, Delete, 4L, "x"))
    }
  }

  test("options that change merging and are not implemented are refused") {
    intercept[UnsupportedFeatureException](spec("first-row"))
    intercept[UnsupportedFeatureException](spec("partial-update", "fields.a.sequence-group" -> "b"))
    intercept[UnsupportedFeatureException](spec("aggregation", "fields.a.aggregate-function" -> "hll_sketch"))
  }

  test("options naming missing columns or unfit types are refused") {
    intercept[InvalidOptionException](spec("deduplicate", "sequence.field" -> "nope"))
    intercept[InvalidOptionException](spec("aggregation", "fields.b.aggregate-function" -> "sum"))
    intercept[InvalidOptionException](spec("aggregation", "fields.k.aggregate-function" -> "sum"))
    intercept[InvalidOptionException](spec("deduplicate", "sequence.field.sort-order" -> "sideways"))
  }

  test("a merged -D of partial-update with remove-record-on-delete is kept for writers") {
    val remove = spec("partial-update", "partial-update.remove-record-on-delete" -> "true").create(schema, Seq(2))
    remove.reset()
    Seq(row(1, Insert, 1L, "x"), row(2, Delete, 1L, "x")).foreach(remove.add)
    assert(remove.result().map(KeyValue.kind).contains(Delete))
  }
}
