package paimonspark.format.row

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.{DataType, DataTypes}

/** The test vectors of the format notes (§10.1), computed by pypaimon 2.1.0's port of Java's function. */
class BucketHashSuite extends AnyFunSuite {
  private def key(t: DataType, v: Any): Array[Byte] = BinaryRow.toBytes(Seq(t), new GenericInternalRow(Array[Any](v)))

  private val vectors = Seq(
    (DataTypes.bigint, 1L, 1465514398, (0, 2, 8)),
    (DataTypes.bigint, 2L, 1340390384, (0, 0, 4)),
    (DataTypes.bigint, 3L, -771300025, (1, 1, 5)),
    (DataTypes.int, 1, 1465514398, (0, 2, 8)),
    (DataTypes.string, UTF8String.fromString("a"), 943281246, (0, 2, 6)),
    (DataTypes.string, UTF8String.fromString("hello world"), 161593394, (0, 2, 4)))

  vectors.foreach { case (t, v, expected, (b2, b4, b10)) =>
    test(s"${t.sql} $v hashes to $expected and lands in buckets $b2/$b4/$b10") {
      val bytes = key(t, v)
      assert(BucketHash.hash(bytes) == expected)
      assert((BucketHash.bucket(bytes, 2), BucketHash.bucket(bytes, 4), BucketHash.bucket(bytes, 10)) == (b2, b4, b10))
    }
  }

  test("the key bytes of the vectors are the BinaryRows the notes show") {
    assert(key(DataTypes.string, UTF8String.fromString("a")).map(b => f"${b & 0xff}%02x").mkString ==
      "00000000000000006100000000000081")
  }
}
