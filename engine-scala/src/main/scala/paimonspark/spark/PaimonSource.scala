package paimonspark.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{Column, Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.format.TablePaths
import paimonspark.fs.{FileIO, HadoopConf}
import paimonspark.table.FileStoreTable

/**
 * The `paimon` data source: path-based reads and writes (`spark.read.format("paimon").load(path)`,
 * `df.write.format("paimon").save(path)`), and what makes `CREATE TABLE ... USING paimon` a
 * DataSource V2 table in the session catalog.
 */
class PaimonSource extends TableProvider with DataSourceRegister {

  override def shortName(): String = "paimon"

  override def supportsExternalMetadata(): Boolean = true

  private def location(options: util.Map[String, String]): Path = {
    val path = new CaseInsensitiveStringMap(options).get("path")
    if (path == null) throw new IllegalArgumentException("the paimon data source needs a path: load(path) or save(path)")
    new Path(path)
  }

  private def fileIO(): FileIO = new FileIO(new HadoopConf(SparkSession.active.sessionState.newHadoopConf()))

  override def inferSchema(options: CaseInsensitiveStringMap): StructType =
    SparkSchemas.sparkSchema(FileStoreTable.load(fileIO(), location(options)).schema)

  override def inferPartitioning(options: CaseInsensitiveStringMap): Array[Transform] = Array.empty

  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table = {
    val io = fileIO()
    val path = location(properties)
    if (FileStoreTable.exists(io, path)) new SparkTable(FileStoreTable.load(io, path), path.toString)
    else {
      // A write to a new location: the schema comes from the DataFrame and is published on commit.
      val options = properties.asScala.toMap -- SparkSchemas.ReservedProperties
      val columns = schema.fields.map(f => Column.create(f.name, f.dataType, f.nullable)).toSeq
      val tableSchema = SparkSchemas.create(path.toString, columns, partitioning.toSeq, options)
      new SparkTable(new FileStoreTable(io, new TablePaths(path), tableSchema), path.toString, created = false)
    }
  }
}
