package paimonspark.bench

import scala.jdk.CollectionConverters._

import org.apache.paimon.catalog.Identifier
import org.apache.paimon.schema.Schema
import org.apache.paimon.types.DataTypes

import paimonspark.interop.JavaPaimon

/**
 * Apache Paimon's Java catalogs timing the operations `bench/catalogs.py` times ours on: the reference for
 * the metastore catalog. Prints one JSON line per catalog with the seconds of each operation.
 *
 * usage: JavaCatalogOps FS_WAREHOUSE HMS_WAREHOUSE METASTORE_URI TABLES LOADS COMMITS
 *   in each catalog (filesystem, then hive with locks off): creates database `java_bench` and TABLES tables
 *   in it, lists them three times, loads LOADS of them, and commits COMMITS one-row appends to one.
 */
object JavaCatalogOps {
  /** Not ours: the Spark side's tables are in `bench` of the same metastore. */
  private val Db = "java_bench"

  def main(args: Array[String]): Unit = {
    val Array(fsWarehouse, hmsWarehouse, uri) = args.take(3)
    val Array(tables, loads, commits) = args.drop(3).map(_.toInt)
    Seq("filesystem" -> new JavaPaimon(fsWarehouse, Map.empty),
      "hive" -> new JavaPaimon(hmsWarehouse, Map("metastore" -> "hive", "uri" -> uri, "lock.enabled" -> "false")))
      .foreach { case (name, java) =>
        try println(measure(name, java, tables, loads, commits)) finally java.close()
      }
  }

  private def seconds(action: => Unit): Double = {
    val start = System.nanoTime()
    action
    (System.nanoTime() - start) / 1e9
  }

  private def measure(name: String, java: JavaPaimon, tables: Int, loads: Int, commits: Int): String = {
    val catalog = java.catalog
    catalog.createDatabase(Db, true)
    val schema = Schema.newBuilder().column("id", DataTypes.INT()).build()
    val create = (0 until tables).map(i => seconds(catalog.createTable(Identifier.create(Db, s"t$i"), schema, false)))
    val list = (1 to 3).map(_ => seconds(assert(catalog.listTables(Db).asScala.size == tables)))
    val load = (0 until loads).map(i => seconds(catalog.getTable(Identifier.create(Db, s"t$i"))))
    // Warm-up commits first, as the Spark side gets them.
    (1 to 3).foreach(i => java.insert(s"$Db.t0", Seq(-i)))
    val commit = (0 until commits).map(i => seconds(java.insert(s"$Db.t0", Seq(i))))
    def list2json(xs: Seq[Double]) = xs.map(x => f"$x%.5f").mkString("[", ", ", "]")
    s"""{"catalog": "$name", "create": ${list2json(create)}, "list": ${list2json(list)}, "load": ${list2json(load)}, """ +
      s""""commit": ${list2json(commit)}}"""
  }
}
