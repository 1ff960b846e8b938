package paimonspark.format.metadata

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.{ArrayType, DataField, DataTypes, MapType, RowType}

class SchemaJsonSuite extends AnyFunSuite {
  private val nested = RowType(Seq(DataField(3, "x", DataTypes.int), DataField(4, "y", DataTypes.string)), nullable = true)
  private val schema = TableSchema(
    id = 2,
    fields = Seq(
      DataField(0, "id", DataTypes.bigint.withNullable(false), Some("the key")),
      DataField(1, "tags", ArrayType(DataTypes.string, nullable = true)),
      DataField(2, "attrs", MapType(DataTypes.string.withNullable(false), DataTypes.decimal(38, 10), nullable = true)),
      DataField(5, "s", nested),
      DataField(6, "ts", DataTypes.timestampLtz(6)),
      DataField(7, "c", DataTypes.char(4))),
    highestFieldId = 7,
    partitionKeys = Seq("c"),
    primaryKeys = Nil,
    options = Map("bucket" -> "-1", "file.format" -> "parquet"),
    comment = Some("a table"),
    timeMillis = 1700000000000L)

  test("a schema round-trips through JSON") {
    assert(SchemaJson.read(SchemaJson.write(schema)) == schema)
  }

  test("the JSON uses Java's spellings, version 3 and field order") {
    val text = SchemaJson.write(schema)
    Seq("\"version\" : 3", "\"BIGINT NOT NULL\"", "\"DECIMAL(38, 10)\"", "\"TIMESTAMP(6) WITH LOCAL TIME ZONE\"",
      "\"CHAR(4)\"", "\"STRING NOT NULL\"", "\"type\" : \"ARRAY\"", "\"type\" : \"ROW\"").foreach { s =>
      assert(text.contains(s), s"missing $s in\n$text")
    }
    val keys = Seq("version", "id", "fields", "highestFieldId", "partitionKeys", "primaryKeys", "options", "comment",
      "timeMillis").map(k => text.indexOf(s"\"$k\""))
    assert(keys == keys.sorted)
  }

  test("aliases and defaults of the type parser") {
    assert(TypeJson.parseAtomic("INTEGER") == DataTypes.int)
    assert(TypeJson.parseAtomic("DECIMAL") == DataTypes.decimal(10, 0))
    assert(TypeJson.parseAtomic("TIMESTAMP") == DataTypes.timestamp(6))
    assert(TypeJson.parseAtomic("TIMESTAMP_LTZ(3) NOT NULL") == DataTypes.timestampLtz(3).withNullable(false))
    assert(TypeJson.parseAtomic("VARCHAR(2147483647)") == DataTypes.string)
    assert(TypeJson.parseAtomic("DOUBLE PRECISION") == DataTypes.double)
  }

  test("an old schema without version gets the implied bucket and file format") {
    val text = """{"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],"highestFieldId":0,
                 |"partitionKeys":[],"primaryKeys":[],"options":{}}""".stripMargin
    val s = SchemaJson.read(text)
    assert(s.options == Map("bucket" -> "1", "file.format" -> "orc"))
    assert(s.comment.isEmpty && s.timeMillis == 0L)
  }

  test("a null comment, as pypaimon writes it, reads as no comment") {
    val text = """{"version":3,"id":0,"fields":[],"highestFieldId":-1,"partitionKeys":[],"primaryKeys":[],
                 |"options":{},"comment":null,"timeMillis":1}""".stripMargin
    assert(SchemaJson.read(text).comment.isEmpty)
  }
}
