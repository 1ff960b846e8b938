package paimonspark.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SaveMode, SQLContext}
import org.apache.spark.sql.connector.catalog.{Table, TableCapability, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.sources.{BaseRelation, CreatableRelationProvider, DataSourceRegister}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.{CommitConflictException, UnsupportedFeatureException}
import paimonspark.fs.FileIO
import paimonspark.spark.catalog.{SessionFileIO, TableName}
import paimonspark.spark.extensions.MergeSchemaWrites
import paimonspark.spark.read.{ChangeColumns, ChangeScanBuilder}
import paimonspark.table.FileStoreTable

/**
 * The `paimon` data source. Reads of a path (`spark.read.format("paimon").load(path)`) are
 * DataSource V2 scans; writes to a path, in any save mode, are run as catalog writes through
 * [[PaimonPathCatalog]]. It is also what makes `USING paimon` a V2 table in the session catalog.
 */
class PaimonSource extends TableProvider with CreatableRelationProvider with DataSourceRegister {

  override def shortName(): String = "paimon"

  override def supportsExternalMetadata(): Boolean = true

  private def location(options: util.Map[String, String]): Path = {
    val path = new CaseInsensitiveStringMap(options).get("path")
    if (path == null) throw new IllegalArgumentException("the paimon data source needs a path: load(path) or save(path)")
    new Path(path)
  }

  private def fileIO(): FileIO = SessionFileIO()

  /** The schema of what the read options address: a snapshot is read with the schema it was written under. */
  override def inferSchema(options: CaseInsensitiveStringMap): StructType = {
    val table = SparkTable.withDynamicOptions(FileStoreTable.load(fileIO(), location(options)), options)
    if (Option(options.get(SparkTable.ReadChangelogOption)).exists(_.trim.equalsIgnoreCase("true"))) {
      ChangeScanBuilder.schema(table, ChangeColumns.AuditLog)
    } else SparkSchemas.sparkSchema(table.schema)
  }

  override def inferPartitioning(options: CaseInsensitiveStringMap): Array[Transform] = Array.empty

  /** A readable table; writes fall back to [[createRelation]] because it has no BATCH_WRITE. */
  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table = {
    val path = location(properties)
    val io = fileIO()
    val dataSchema = schema
    if (FileStoreTable.exists(io, path)) {
      SparkTable.open(FileStoreTable.load(io, path), TableName(path.toString, None, None), path.toString, None,
        new CaseInsensitiveStringMap(properties), pathBased = true)
    } else new Table {
      override def name(): String = path.toString
      override def schema(): StructType = dataSchema
      override def capabilities(): util.Set[TableCapability] = Set.empty[TableCapability].asJava
    }
  }

  override def createRelation(sqlContext: SQLContext, mode: SaveMode, parameters: Map[String, String],
      data: DataFrame): BaseRelation = {
    val spark = sqlContext.sparkSession
    val path = location(parameters.asJava)
    val io = fileIO()
    val target = PaimonPathCatalog.identifier(spark, io.fileSystem(path).makeQualified(path).toString)
    val exists = FileStoreTable.exists(io, path)
    val partitionColumns = parameters.get(PaimonSource.PartitioningKey).map(PaimonSource.decodeColumns).getOrElse(Nil)
    val (writeOptions, options) = (parameters -- Seq("path", PaimonSource.PartitioningKey))
      .partition { case (k, _) => PaimonSource.WriteOptions.exists(_.equalsIgnoreCase(k)) }
    if (exists && options.nonEmpty) {
      throw new UnsupportedFeatureException(s"write options (${options.keys.mkString(", ")}) on the existing table " +
        s"$path are not supported yet; change table options with ALTER TABLE")
    }
    (mode, exists) match {
      case (SaveMode.ErrorIfExists, true) =>
        throw new CommitConflictException(path.toString, s"$path already holds a Paimon table; use mode append or overwrite")
      case (SaveMode.Ignore, true) => ()
      case (SaveMode.Append, true) => data.writeTo(target).options(writeOptions).append()
      case (SaveMode.Overwrite, true) => data.writeTo(target).options(writeOptions).overwrite(lit(true))
      case (_, false) =>
        // A new table takes the data's schema: there is nothing for the write options to merge.
        val writer = options.foldLeft(data.writeTo(target)) { case (w, (k, v)) => w.tableProperty(k, v) }
        partitionColumns match {
          case Seq() => writer.create()
          case first +: rest => writer.partitionedBy(col(first), rest.map(col): _*).create()
        }
    }
    val context = sqlContext
    new BaseRelation {
      override def sqlContext: SQLContext = context
      override def schema: StructType = data.schema
    }
  }
}

object PaimonSource {
  /** Options that change how one write runs rather than the table: taken by writes to existing tables too. */
  val WriteOptions: Seq[String] = MergeSchemaWrites.WriteOptions

  /** Where DataFrameWriter puts `partitionBy` columns for a V1 save (`DataSourceUtils.PARTITIONING_COLUMNS_KEY`). */
  val PartitioningKey = "__partition_columns"

  /** The JSON array of column names Spark encodes them as. */
  def decodeColumns(json: String): Seq[String] = {
    val node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json)
    (0 until node.size()).map(i => node.get(i).asText())
  }
}
