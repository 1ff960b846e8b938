package paimonspark.interop

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.iceberg.Table
import org.apache.iceberg.data.IcebergGenerics
import org.apache.iceberg.hadoop.HadoopTables

/** Iceberg's own Java library reading a table's Iceberg metadata as an Iceberg reader does. */
object IcebergJava {
  /** The rows of the table whose metadata is under `location`/metadata, at its current or given snapshot, sorted. */
  def rows(location: String, snapshot: Option[Long] = None): Seq[Seq[Any]] =
    rows(new HadoopTables(new Configuration()).load(location), snapshot)

  /** The rows of an Iceberg table a catalog loaded, at its current or given snapshot, sorted. */
  def rows(table: Table, snapshot: Option[Long]): Seq[Seq[Any]] = {
    val records = snapshot.foldLeft(IcebergGenerics.read(table))(_.useSnapshot(_)).build()
    // With deletes to apply, records carry the row position too, after the table's columns.
    val width = table.schema().columns().size()
    try records.asScala.map(r => (0 until width).map(r.get(_): Any)).toSeq.sortBy(_.mkString(","))
    finally records.close()
  }
}
