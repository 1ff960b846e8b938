package paimonspark.spark.catalog

import scala.util.Random

import org.apache.paimon.bucket.DefaultBucketFunction
import org.apache.paimon.data.GenericRow
import org.apache.paimon.data.serializer.InternalRowSerializer
import org.apache.paimon.types.{DataTypes => J, RowType}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.ApplyFunctionExpression
import org.apache.spark.sql.catalyst.expressions.objects.Invoke
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction
import org.apache.spark.sql.types._
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * `paimon_bucket` is Paimon's default bucket function, whether Spark calls its generated-code
 * `invoke` (a key of one non-null BIGINT, INT or DATE column) or its row-at-a-time `produceResult`.
 */
class BucketFunctionSuite extends AnyFunSuite with BeforeAndAfterAll {
  private val random = new Random(7)
  private lazy val (spark, _) = LocalSession.start("bucket-function")

  override def afterAll(): Unit = spark.stop()

  private def bind(key: DataType, nullable: Boolean): ScalarFunction[Integer] =
    BucketFunction.bind(StructType(Seq(StructField("n", IntegerType, nullable = false), StructField("k", key, nullable))))
      .asInstanceOf[ScalarFunction[Integer]]

  private def java(javaType: org.apache.paimon.types.DataType, value: AnyRef, n: Int): Int = {
    val row = new InternalRowSerializer(RowType.of(javaType)).toBinaryRow(GenericRow.of(value))
    new DefaultBucketFunction().bucket(row, n)
  }

  test("a non-null integral key is bucketed by invoke, as Java and the row-at-a-time path bucket it") {
    val longs = Seq(0L, 1L, -1L, Long.MinValue, Long.MaxValue, Int.MinValue.toLong, 1L << 32) ++ Seq.fill(200)(random.nextLong())
    val ints = Seq(0, 1, -1, Int.MinValue, Int.MaxValue) ++ Seq.fill(200)(random.nextInt())
    val fast = bind(LongType, nullable = false).asInstanceOf[BucketFunction.LongKey]
    val slow = bind(LongType, nullable = true)
    assert(!slow.isInstanceOf[BucketFunction.LongKey])
    for (v <- longs; n <- Seq(1, 3, 8, 1000)) {
      val expected = java(J.BIGINT(), Long.box(v), n)
      assert((fast.invoke(n, v), slow.produceResult(InternalRow(n, v)).intValue()) == (expected, expected), s"$v among $n")
    }
    Seq(IntegerType -> J.INT(), DateType -> J.DATE()).foreach { case (spark, javaType) =>
      val fastInt = bind(spark, nullable = false).asInstanceOf[BucketFunction.IntKey]
      for (v <- ints; n <- Seq(3, 8)) {
        val expected = java(javaType, Int.box(v), n)
        assert((fastInt.invoke(n, v), bind(spark, nullable = true).produceResult(InternalRow(n, v)).intValue()) ==
          (expected, expected), s"${spark.sql} $v among $n")
      }
    }
  }

  test("Spark calls invoke from generated code for a non-null key, produceResult for a nullable one") {
    val query = spark.range(0, 5000).selectExpr("id - 2500 AS id", "nullif(id - 2500, 12345) AS maybe")
    query.createOrReplaceTempView("keys")
    val df = spark.sql("SELECT paimon.paimon_bucket(8, id) AS a, paimon.paimon_bucket(8, maybe) AS b, " +
      "paimon.paimon_bucket(8, CAST(id AS INT)) AS c, paimon.paimon_bucket(8, CAST(maybe AS INT)) AS d FROM keys")
    val expressions = df.queryExecution.analyzed.expressions.flatMap(_.collect {
      case i: Invoke => "invoke"
      case a: ApplyFunctionExpression => "row"
    })
    assert(expressions == Seq("invoke", "row", "invoke", "row"))
    val rows = df.collect()
    assert(rows.forall(r => r.getInt(0) == r.getInt(1) && r.getInt(2) == r.getInt(3)))
    assert(rows.map(_.getInt(0)).toSet == (0 until 8).toSet)
  }
}
