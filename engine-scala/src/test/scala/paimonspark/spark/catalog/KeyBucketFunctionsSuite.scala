package paimonspark.spark.catalog

import scala.util.Random

import org.apache.paimon.{bucket => jbucket}
import org.apache.paimon.data.{BinaryString, Decimal => JDecimal, GenericRow}
import org.apache.paimon.data.serializer.InternalRowSerializer
import org.apache.paimon.types.{DataTypes => J, RowType}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** `mod_bucket` and `hive_bucket` agree with Paimon's Java ModBucketFunction and HiveBucketFunction. */
class KeyBucketFunctionsSuite extends AnyFunSuite {
  private val random = new Random(31)

  /** Ours and Java's bucket among `n` of one key value, given as (Spark value, Java value). */
  private def both(function: KeyBucketFunction, java: RowType => jbucket.BucketFunction, spark: DataType,
      javaType: org.apache.paimon.types.DataType, n: Int)(value: (Any, Any)): (Int, Int) = {
    val bound = function.bind(StructType(Seq(StructField("n", IntegerType), StructField("k", spark))))
      .asInstanceOf[ScalarFunction[Integer]]
    val rowType = RowType.of(javaType)
    val binary = new InternalRowSerializer(rowType).toBinaryRow(GenericRow.of(value._2.asInstanceOf[AnyRef]))
    (bound.produceResult(InternalRow(n, value._1)).intValue(), java(rowType).bucket(binary, n))
  }

  test("mod_bucket is Paimon's floor modulo of INT and BIGINT keys") {
    val ints = Seq(17, -3, 5, 0, Int.MinValue) ++ Seq.fill(50)(random.nextInt())
    ints.foreach { i =>
      val (ours, java) = both(ModBucketFunction, new jbucket.ModBucketFunction(_), IntegerType, J.INT(), 5)(i -> i)
      assert(ours == java, s"$i")
    }
    Seq.fill(50)(random.nextLong()).foreach { l =>
      val (ours, java) = both(ModBucketFunction, new jbucket.ModBucketFunction(_), LongType, J.BIGINT(), 7)(l -> l)
      assert(ours == java, s"$l")
    }
    intercept[UnsupportedOperationException](ModBucketFunction.bind(StructType(Seq(StructField("n", IntegerType),
      StructField("k", StringType)))))
  }

  test("hive_bucket is Paimon's Hive hash for each key type") {
    def check(spark: DataType, java: org.apache.paimon.types.DataType, values: Seq[(Any, Any)]): Unit = values.foreach { v =>
      val (ours, theirs) = both(HiveBucketFunction, new jbucket.HiveBucketFunction(_), spark, java, 13)(v)
      assert(ours == theirs, s"${spark.sql} ${v._1}")
    }
    check(IntegerType, J.INT(), Seq.fill(30)(random.nextInt()).map(i => i -> i))
    check(LongType, J.BIGINT(), Seq.fill(30)(random.nextLong()).map(l => l -> l))
    check(BooleanType, J.BOOLEAN(), Seq(true -> true, false -> false))
    check(DoubleType, J.DOUBLE(), (Seq(0.0, -0.0, 1.5, -2.25) ++ Seq.fill(20)(random.nextDouble())).map(d => d -> d))
    check(FloatType, J.FLOAT(), Seq(0.0f, -0.0f, 3.25f).map(f => f -> f))
    check(DateType, J.DATE(), Seq(0, 19000, -5).map(d => d -> d))
    val strings = Seq("", "a", "hello", "ünïcødé") ++ Seq.fill(20)(random.alphanumeric.take(random.nextInt(20)).mkString)
    check(StringType, J.STRING(), strings.map(s => UTF8String.fromString(s) -> BinaryString.fromString(s)))
    val decimals = Seq("0", "1.50", "-12345.678", "99999999.99")
    check(DecimalType(12, 2), J.DECIMAL(12, 2), decimals.map { d =>
      val big = new java.math.BigDecimal(d).setScale(2, java.math.RoundingMode.HALF_UP)
      Decimal(big) -> JDecimal.fromBigDecimal(big, 12, 2)
    })
    check(BinaryType, J.BYTES(), Seq(Array[Byte](1, -2, 3)).map(b => b -> b))
  }

  test("hive_bucket combines several key columns and takes nulls as Paimon does") {
    val bound = HiveBucketFunction.bind(StructType(Seq(StructField("n", IntegerType), StructField("a", IntegerType),
      StructField("b", StringType)))).asInstanceOf[ScalarFunction[Integer]]
    val rowType = RowType.of(J.INT(), J.STRING())
    val java = new jbucket.HiveBucketFunction(rowType)
    val serializer = new InternalRowSerializer(rowType)
    Seq((1, "x"), (-7, null), (42, "paimon")).foreach { case (a, b) =>
      val binary = serializer.toBinaryRow(GenericRow.of(Int.box(a), if (b == null) null else BinaryString.fromString(b)))
      assert(bound.produceResult(InternalRow(8, a, if (b == null) null else UTF8String.fromString(b))) == java.bucket(binary, 8))
    }
  }
}
