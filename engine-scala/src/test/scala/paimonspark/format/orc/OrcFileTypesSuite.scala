package paimonspark.format.orc

import org.apache.orc.TypeDescription
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class OrcFileTypesSuite extends AnyFunSuite {
  private val file = TypeDescription.fromString(
    "struct<id:int,ts:timestamp,name:varchar(10),tags:array<int>,attrs:map<string,struct<at:timestamp with local time zone>>>")

  test("a file holding each column in the ORC type Paimon writes for it contradicts nothing") {
    val requested = new StructType().add("ID", IntegerType).add("ts", TimestampNTZType).add("name", StringType)
      .add("tags", ArrayType(IntegerType)).add("attrs", MapType(StringType, new StructType().add("at", TimestampType)))
      .add("added_later", LongType)
    assert(OrcFileTypes.contradiction(file, requested).isEmpty)
  }

  test("the first column held in another type is named, with the ORC type and the schema's, nested ones by their path") {
    assert(OrcFileTypes.contradiction(file, new StructType().add("id", TimestampType)).contains(
      "column 'id' is stored as ORC int, which does not hold its TIMESTAMP"))
    assert(OrcFileTypes.contradiction(file, new StructType().add("tags", ArrayType(LongType))).contains(
      "column 'tags.element' is stored as ORC int, which does not hold its BIGINT"))
    assert(OrcFileTypes.contradiction(file, new StructType().add("attrs", MapType(StringType,
      new StructType().add("at", DateType)))).contains(
      "column 'attrs.value.at' is stored as ORC timestamp with local time zone, which does not hold its DATE"))
    assert(OrcFileTypes.contradiction(file, new StructType().add("name", ArrayType(StringType))).isDefined)
  }
}
