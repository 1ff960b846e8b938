package paimonspark.format

import java.time.{LocalDateTime, ZoneOffset}

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** Partition directory names as Java's PartitionPathUtils and legacy value names produce them. */
class PartitionPathSuite extends AnyFunSuite {
  private def path(t: DataType, v: Any) =
    PartitionPath.of(Seq("p"), Seq(t), new GenericInternalRow(Array[Any](v)), PartitionPath.DefaultPartitionName)

  private def micros(ldt: LocalDateTime): Long =
    ldt.toEpochSecond(ZoneOffset.UTC) * 1000000L + ldt.getNano / 1000

  test("special characters are escaped as %XX, space and unicode kept") {
    assert(PartitionPath.escape("a b/c:d=e%f") == "a b%2Fc%3Ad%3De%25f")
    assert(PartitionPath.escape("\"#'*?\\{}[]^") == "%22%23%27%2A%3F%5C%7B%7D%5B%5D%5E")
    assert(PartitionPath.escape("über\u0001\u007f") == "über%01%7F")
  }

  test("null, empty and blank values use the default partition name") {
    assert(path(DataTypes.string, null) == "p=__DEFAULT_PARTITION__")
    assert(path(DataTypes.string, UTF8String.fromString("")) == "p=__DEFAULT_PARTITION__")
    assert(path(DataTypes.string, UTF8String.fromString("  ")) == "p=__DEFAULT_PARTITION__")
  }

  test("values are Java's toString of the internal value") {
    assert(path(DataTypes.date, 19723) == "p=19723")
    assert(path(DataTypes.int, -4) == "p=-4")
    assert(path(DataTypes.boolean, true) == "p=true")
    assert(path(DataTypes.decimal(10, 2), Decimal(BigDecimal("12.50"), 10, 2)) == "p=12.50")
    assert(path(DataTypes.double, 1.0e10) == "p=1.0E10")
  }

  test("timestamps print like LocalDateTime.toString, colons escaped") {
    assert(path(DataTypes.timestamp(6), micros(LocalDateTime.of(2024, 1, 1, 12, 0))) == "p=2024-01-01T12%3A00")
    assert(path(DataTypes.timestamp(6), micros(LocalDateTime.of(2024, 1, 1, 12, 0, 1))) == "p=2024-01-01T12%3A00%3A01")
    assert(path(DataTypes.timestampLtz(6), micros(LocalDateTime.of(2024, 1, 1, 12, 0, 1, 123000000))) ==
      "p=2024-01-01T12%3A00%3A01.123")
    assert(path(DataTypes.timestamp(6), micros(LocalDateTime.of(2024, 1, 1, 12, 0, 1, 123456000))) ==
      "p=2024-01-01T12%3A00%3A01.123456")
  }

  test("several partition columns nest in key order") {
    val row = new GenericInternalRow(Array[Any](UTF8String.fromString("x/y"), 3))
    assert(PartitionPath.of(Seq("a", "b"), Seq(DataTypes.string, DataTypes.int), row, "dflt") == "a=x%2Fy/b=3")
  }
}
