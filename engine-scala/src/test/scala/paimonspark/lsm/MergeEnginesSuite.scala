package paimonspark.lsm

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.{DataField, DataTypes}
import paimonspark.format.metadata.TableSchema

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
    Option(engine.result()).filterNot(KeyValue.isRetract).map(r => (if (r.isNullAt(3)) null else r.getLong(3), if (r.isNullAt(4)) null else r.getUTF8String(4).toString))
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
    // As Paimon's PartialUpdateMergeFunction: the -D's values are the row the next version updates.
    assert(fold(remove, row(1, Insert, 1L, "x"), row(2, Delete, 1L, "x"), row(3, Insert, null, "y")) == Some((1L, "y")))
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
    intercept[UnsupportedFeatureException](spec("aggregation", "fields.a.aggregate-function" -> "hll_sketch"))
    intercept[UnsupportedFeatureException](spec("aggregation", "fields.a.aggregate-function" -> "count"))
    intercept[InvalidOptionException](spec("partial-update", "fields.a.sequence-group" -> "b",
      "partial-update.remove-record-on-sequence-group" -> "b"))
  }

  test("partial-update: a -D not older in a group of remove-record-on-sequence-group removes the row, as in Paimon") {
    // Group (a) orders b; a -D with a >= the stored a removes the row, an older one only retracts b.
    val removing = spec("partial-update", "fields.a.sequence-group" -> "b",
      "partial-update.remove-record-on-sequence-group" -> "a")
    assert(fold(removing, row(1, Insert, 5L, "x"), row(2, Delete, 5L, "x")).isEmpty)
    assert(fold(removing, row(1, Insert, 5L, "x"), row(2, Delete, 4L, "x")) == Some((5L, "x")))
    // Later versions go on from the -D's values.
    assert(fold(removing, row(1, Insert, 5L, "x"), row(2, Delete, 6L, "gone"), row(3, Insert, 7L, null)) ==
      Some((7L, null)))
  }

  test("aggregation with remove-record-on-delete: a -D removes the key, and its values restart the fold, as in Paimon") {
    val agg = spec("aggregation", "fields.a.aggregate-function" -> "sum", "aggregation.remove-record-on-delete" -> "true")
    assert(fold(agg, row(1, Insert, 10L, "x"), row(2, Delete, 4L, "x")).isEmpty)
    assert(fold(agg, row(1, Insert, 10L, "x"), row(2, Delete, 4L, "x"), row(3, Insert, 1L, "y")) == Some((5L, "y")))
    // Retractions other than -D still take values back out.
    assert(fold(agg, row(1, Insert, 10L, "x"), row(2, UpdateBefore, 4L, null)) == Some((6L, "x")))
  }

  test("first-row keeps the oldest version and refuses retractions unless told to drop them") {
    assert(fold(spec("first-row"), row(1, Insert, 1L, "a"), row(2, UpdateAfter, 2L, "b")) == Some((1L, "a")))
    intercept[UnsupportedFeatureException](fold(spec("first-row"), row(1, Insert, 1L, "a"), row(2, Delete, 1L, "a")))
    assert(fold(spec("first-row", "ignore-delete" -> "true"), row(1, Delete, 1L, "a"), row(2, Insert, 2L, "b")) ==
      Some((2L, "b")))
    intercept[InvalidOptionException](spec("first-row", "sequence.field" -> "a"))
  }

  test("a sequence group updates its columns together, by its own sequence, nulls included") {
    // Group (b) ordered by a: an older a leaves b alone; a null a skips the group.
    val grouped = spec("partial-update", "fields.a.sequence-group" -> "b")
    assert(fold(grouped, row(1, Insert, 5L, "x"), row(2, Insert, 3L, "older"), row(3, Insert, null, "no-seq")) ==
      Some((5L, "x")))
    assert(fold(grouped, row(1, Insert, 5L, "x"), row(2, Insert, 5L, null)) == Some((5L, null)))
    // A retraction that is not older clears the group; an older one does nothing.
    assert(fold(grouped, row(1, Insert, 5L, "x"), row(2, Delete, 4L, "x")) == Some((5L, "x")))
    assert(fold(grouped, row(1, Insert, 5L, "x"), row(2, Delete, 6L, "x")) == Some((6L, null)))
    // Only retractions: the merged version is itself a retraction.
    assert(fold(grouped, row(1, Delete, 6L, "x")).isEmpty)
    intercept[InvalidOptionException](spec("partial-update", "fields.a.sequence-group" -> "nope"))
  }

  test("partial-update aggregates the columns of a sequence group, older versions included, and refuses it elsewhere") {
    // (sequence, kind, key, g, total, names): group g protects total (sum) and names (listagg distinct).
    val wide = StructType(schema.fields.take(3) ++ Seq(StructField("g", LongType), StructField("total", LongType),
      StructField("names", StringType)))
    val fields = Seq(DataField(0, "k", DataTypes.int.withNullable(false)), DataField(1, "g", DataTypes.bigint),
      DataField(2, "total", DataTypes.bigint), DataField(3, "names", DataTypes.string))
    def wideSpec(options: (String, String)*) = MergeEngineSpec.of("t", TableSchema(0, fields, 3, Nil, Seq("k"),
      (options :+ ("merge-engine" -> "partial-update")).toMap, None, 0L))
    val spec = wideSpec("fields.g.sequence-group" -> "total,names", "fields.total.aggregate-function" -> "sum",
      "fields.names.aggregate-function" -> "listagg", "fields.names.distinct" -> "true",
      "fields.names.ignore-retract" -> "true")
    def version(seq: Long, kind: Byte, g: Any, total: Any, names: String) =
      new GenericInternalRow(Array[Any](seq, kind, 1, g, total, Option(names).map(UTF8String.fromString).orNull))
    def merged(rows: InternalRow*): (Any, Any, Any) = {
      val engine = spec.create(wide, Seq(2))
      engine.reset()
      rows.foreach(engine.add)
      val r = engine.result()
      (r.get(3, LongType), r.get(4, LongType), Option(r.getUTF8String(5)).map(_.toString).orNull)
    }
    // The group's sequence takes the highest g; the sum counts the older version too; names come
    // oldest first, each once, and the older version's names go in front.
    assert(merged(version(1, Insert, 5L, 10L, "a,b"), version(2, Insert, 3L, 1L, "c,a"), version(3, Insert, 7L, 100L, "b,d")) ==
      ((7L, 111L, "c,a,b,d")))
    // A version without a group sequence leaves the group alone; a retraction takes its value back out.
    assert(merged(version(1, Insert, 5L, 10L, "a"), version(2, Insert, null, 99L, "z"),
      version(3, UpdateBefore, 4L, 4L, null)) == ((5L, 6L, "a")))
    // Outside a group only last_non_null_value (what partial-update does anyway) may be named.
    val refused = intercept[InvalidOptionException](wideSpec("fields.total.aggregate-function" -> "sum"))
    assert(refused.getMessage.contains("fields.total.aggregate-function") && refused.getMessage.contains("sequence group"))
    intercept[InvalidOptionException](wideSpec("fields.default-aggregate-function" -> "max",
      "fields.g.sequence-group" -> "total"))
    wideSpec("fields.default-aggregate-function" -> "max", "fields.g.sequence-group" -> "total,names")
    wideSpec("fields.total.aggregate-function" -> "last_non_null_value")
    intercept[InvalidOptionException](wideSpec("fields.g.sequence-group" -> "names", "fields.names.aggregate-function" -> "sum"))
  }

  test("a null sequence.field value is the oldest version in either sort order") {
    val schema2 = schema
    for (order <- Seq("ascending", "descending")) {
      val ordering = spec("deduplicate", "sequence.field" -> "a", "sequence.field.sort-order" -> order)
        .versionOrdering(schema2)
      assert(ordering.lt(row(9, Insert, null, "x"), row(1, Insert, 3L, "y")), order)
    }
    val descending = spec("deduplicate", "sequence.field" -> "a", "sequence.field.sort-order" -> "descending")
      .versionOrdering(schema)
    assert(descending.lt(row(1, Insert, 9L, "x"), row(2, Insert, 3L, "y")))
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
    assert(Option(remove.result()).map(KeyValue.kind).contains(Delete))
  }
}
