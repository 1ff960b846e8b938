package paimonspark.interop

import java.math.BigDecimal
import java.sql.{Date => SqlDate}
import java.time.{LocalDate, LocalDateTime}

import scala.jdk.CollectionConverters._

import org.apache.paimon.data.{Decimal, Timestamp}
import org.apache.paimon.schema.{Schema, SchemaChange}
import org.apache.paimon.types.DataTypes
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.spark.LocalSession

/**
 * Schema evolution both ways with Apache Paimon's Java core: Java reads every snapshot of tables we
 * evolved (renamed, widened, added, moved and dropped columns, before and after our compaction),
 * and we read tables Java evolved, explicit casts included, with the values Java reads.
 */
class SchemaEvolutionInteropSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val (spark, warehouse) = LocalSession.start("schema-evolution-interop")
  private lazy val java = new JavaPaimon(warehouse)

  override def afterAll(): Unit = { java.close(); spark.stop() }

  private def sql(text: String) = spark.sql(text).collect().toSeq
  private def ours(query: String): Seq[Seq[Any]] = JavaPaimon.sorted(sql(query).map(_.toSeq))

  Seq("append" -> "", "primary-key" -> "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')").foreach {
    case (kind, properties) =>
      test(s"$kind table: Java reads every snapshot of a table we evolved") {
        val t = s"ours_${kind.replace('-', '_')}"
        sql(s"CREATE TABLE paimon.default.$t (id INT, a INT, b STRING, f FLOAT, d DECIMAL(8, 2)) $properties")
        sql(s"INSERT INTO paimon.default.$t VALUES (1, 10, 'one', 1.5, 1.25), (2, 20, 'two', 2.5, 2.50)")
        sql(s"ALTER TABLE paimon.default.$t RENAME COLUMN b TO b2")
        sql(s"ALTER TABLE paimon.default.$t ALTER COLUMN a TYPE BIGINT")
        sql(s"ALTER TABLE paimon.default.$t ALTER COLUMN f TYPE DOUBLE")
        sql(s"ALTER TABLE paimon.default.$t ALTER COLUMN d TYPE DECIMAL(12, 2)")
        sql(s"ALTER TABLE paimon.default.$t ADD COLUMN c STRING FIRST")
        sql(s"INSERT INTO paimon.default.$t VALUES ('c3', 3, 30000000000, 'three', 3.25, 12345678.90)")
        sql(s"ALTER TABLE paimon.default.$t DROP COLUMN f")
        sql(s"INSERT INTO paimon.default.$t VALUES ('c1', 1, 11, 'one again', 1.00)")
        val snapshots = sql(s"SELECT snapshot_id FROM paimon.default.`$t$$snapshots`").map(_.getLong(0))
        snapshots.foreach { id =>
          assert(java.atSnapshot(s"default.$t", id) == ours(s"SELECT * FROM paimon.default.$t VERSION AS OF $id"),
            s"snapshot $id")
        }
        sql(s"CALL paimon.sys.compact(table => 'default.$t', compact_strategy => 'full')")
        val now = ours(s"SELECT * FROM paimon.default.$t")
        assert(java.rows(s"default.$t") == now)
        assert(now.map(_.take(3)).contains(Seq(null, 2, 20L)))
      }
  }

  test("we read a table Java evolved, explicit casts included, with Java's values") {
    val name = "default.java_evolved"
    java.createTable(name, Schema.newBuilder()
      .column("id", DataTypes.INT().notNull()).column("a", DataTypes.INT()).column("b", DataTypes.BIGINT())
      .column("c", DataTypes.STRING()).column("d", DataTypes.DECIMAL(10, 2)).column("e", DataTypes.DOUBLE())
      .column("g", DataTypes.DATE()).column("h", DataTypes.TIMESTAMP(6)).column("k", DataTypes.SMALLINT())
      .primaryKey("id").option("bucket", "1").build())
    java.insert(name, Seq[Any](1, 7, 42L, "123", Decimal.fromBigDecimal(new BigDecimal("12.34"), 10, 2), 2.75,
      LocalDate.of(2024, 1, 2).toEpochDay.toInt, Timestamp.fromLocalDateTime(LocalDateTime.of(2024, 1, 2, 3, 4, 5, 123456000)),
      3.toShort))
    java.insert(name, Seq[Any](2, -5, 5000000000L, "-9", Decimal.fromBigDecimal(new BigDecimal("-0.50"), 10, 2),
      -1.5, 0, Timestamp.fromLocalDateTime(LocalDateTime.of(1970, 1, 1, 0, 0)), (-3).toShort))
    java.alter(name,
      SchemaChange.renameColumn("a", "a2"),
      SchemaChange.updateColumnType("a2", DataTypes.STRING()),
      SchemaChange.updateColumnType("b", DataTypes.INT()),
      SchemaChange.updateColumnType("c", DataTypes.INT()),
      SchemaChange.updateColumnType("d", DataTypes.DOUBLE()),
      SchemaChange.updateColumnType("e", DataTypes.DECIMAL(10, 1)),
      SchemaChange.updateColumnType("g", DataTypes.TIMESTAMP(6)),
      SchemaChange.updateColumnType("h", DataTypes.DATE()),
      SchemaChange.updateColumnType("k", DataTypes.BIGINT()),
      SchemaChange.addColumn("n", DataTypes.STRING()),
      SchemaChange.dropColumn("e"))
    java.insert(name, Seq[Any](3, "x", 3, 3, 3.5, Timestamp.fromEpochMillis(0), 0, 3L, "new"))
    val expected = java.rows(name)
    assert(expected.size == 3)
    // Java gives a DATE as its day number.
    val days = (v: Any) => v match {
      case d: SqlDate => d.toLocalDate.toEpochDay.toInt
      case other => other
    }
    assert(ours("SELECT * FROM paimon.default.java_evolved").map(_.map(days)) == expected)
  }

  test("$aggregation_fields of our table reads as Java's: type spellings, comments, each column's options in Java's order") {
    sql("CREATE TABLE paimon.default.agg_fields (id INT COMMENT 'the key', n BIGINT, s STRING, " +
      "r STRUCT<`a b`: INT NOT NULL COMMENT 'it''s', c: ARRAY<DECIMAL(10, 2)>>, m MAP<STRING, TIMESTAMP>, v VARCHAR(8)) " +
      "TBLPROPERTIES ('primary-key' = 'id', 'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum', " +
      "'fields.n.ignore-retract' = 'true', 'fields.s.aggregate-function' = 'listagg', 'fields.s.list-agg-delimiter' = ';', " +
      "'fields.s.ignore-retract' = 'true', 'fields.default-aggregate-function' = 'last_value')")
    val mine = ours("SELECT * FROM paimon.default.`agg_fields$aggregation_fields`")
    assert(mine.size == 6 && java.rows("default.agg_fields$aggregation_fields") == mine)
  }

  test("column defaults: Java reads the defaults we keep, and Java and we write a default in place of a null") {
    sql("CREATE TABLE paimon.default.defaults (id INT, s STRING DEFAULT 'dv', n INT DEFAULT 7) " +
      "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    sql("ALTER TABLE paimon.default.defaults ALTER COLUMN n SET DEFAULT 9")
    assert(java.table("default.defaults").rowType().getFields.asScala.map(_.defaultValue()) == Seq(null, "'dv'", "9"))
    sql("INSERT INTO paimon.default.defaults (id) VALUES (1)")
    sql("INSERT INTO paimon.default.defaults VALUES (2, NULL, NULL)")
    java.insert("default.defaults", Seq[Any](3, null, null))
    val expected = Seq(Seq(1, "dv", 9), Seq(2, "dv", 9), Seq(3, "dv", 9))
    assert(ours("SELECT * FROM paimon.default.defaults") == expected && java.rows("default.defaults") == expected)
  }

  test("a string that does not parse in a column's new type fails the read, in Java and here") {
    val name = "default.unparsable"
    java.createTable(name, Schema.newBuilder().column("id", DataTypes.INT()).column("c", DataTypes.STRING()).build())
    java.insert(name, Seq[Any](1, "12"), Seq[Any](2, "twelve"))
    java.alter(name, SchemaChange.updateColumnType("c", DataTypes.INT()))
    intercept[Exception](java.rows(name))
    val error = intercept[Exception](sql("SELECT * FROM paimon.default.unparsable"))
    assert(error.getMessage.contains("'twelve'"))
  }
}
