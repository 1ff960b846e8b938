package paimonspark.spark.procedures

import java.util.UUID

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.connector.catalog.TableCatalog
import org.apache.spark.sql.types._

import paimonspark.{InvalidIdentifierException, TableNotFoundException}
import paimonspark.catalog.Catalog
import paimonspark.spark.SparkTable
import paimonspark.spark.catalog.WithPaimonCatalog
import paimonspark.table.FileStoreTable
import paimonspark.table.write.{FileCopy, TableCopy}

/**
 * `CALL sys.copy(source_table, target_table, where)`: Paimon's copy of a table's latest snapshot
 * into another table, which may be in another Paimon catalog of the session (`cat.db.t`). A missing
 * target is created with the source's schema (its database too); an existing one must be compatible
 * by Paimon's rules ([[TableCopy.checkCompatible]]). The data and index files of the partitions
 * `where` selects (a predicate on partition columns) are copied by Spark's executors, then added to
 * the target in one commit that replaces those partitions. Arguments are checked first.
 */
final class CopyProcedure(tables: String => FileStoreTable, catalog: String) extends BaseProcedure(tables) {
  override def name(): String = "copy"
  override protected val params = Seq(required("source_table", StringType), required("target_table", StringType),
    optional("where", StringType))
  override protected val output = Seq(StructField("result", BooleanType))

  override protected def run(args: Args): Seq[InternalRow] = {
    val sourceName = args.need("source_table", args.string("source_table"))
    val targetName = args.need("target_table", args.string("target_table"))
    val source = sourceTable(sourceName)
    val (targetCatalog, db, table) = targetOf(targetName)
    val partitions = PartitionSelection(name(), source, None, args.string("where"))
    val snapshot = source.snapshotManager.latest()
    val target = if (targetCatalog.tableExists(db, table)) {
      val existing = targetCatalog.loadTable(db, table)
      TableCopy.checkCompatible(source, existing, targetName)
      existing
    } else create(targetCatalog, db, table, source)
    snapshot.foreach { s =>
      val copy = new TableCopy(source, s, target, partitions)
      copyFiles(copy.files, source, target)
      copy.commit(UUID.randomUUID().toString)
    }
    Seq(InternalRow(true))
  }

  private def sourceTable(text: String): FileStoreTable = {
    val (plugin, ident) = ProcedureTableName.inSession(text, catalog)
    val loaded = plugin match {
      case c: TableCatalog =>
        try Some(c.loadTable(ident)) catch { case _: NoSuchTableException | _: TableNotFoundException => None }
      case _ => None
    }
    loaded match {
      case Some(t: SparkTable) => t.store
      case Some(other) => throw new InvalidIdentifierException(text, s"copy: source_table '$text' is not a Paimon " +
        s"table but a ${other.getClass.getSimpleName}; copy takes a table of a Paimon catalog")
      case None => throw new TableNotFoundException(text, s"copy: source_table '$text' does not exist in catalog " +
        plugin.name())
    }
  }

  /** The Paimon catalog of the target and the target's database and name in it. */
  private def targetOf(text: String): (Catalog, String, String) = {
    val (plugin, ident) = ProcedureTableName.inSession(text, catalog)
    val paimon = plugin match {
      case c: WithPaimonCatalog => c.paimonCatalog
      case other => throw new InvalidIdentifierException(text, s"copy: target_table '$text' is in catalog " +
        s"${other.name()}, which is not a Paimon catalog of databases and tables (a filesystem or metastore catalog)")
    }
    ident.namespace() match {
      case Array(db) => (paimon, db, ident.name())
      case ns => throw new InvalidIdentifierException(text, s"copy: target_table '$text' must be db.table, not " +
        (ns :+ ident.name()).mkString("."))
    }
  }

  /** The target as Paimon's copy creates it, with the source's schema versions, in its database (created if missing). */
  private def create(catalog: Catalog, db: String, table: String, source: FileStoreTable): FileStoreTable = {
    if (!catalog.databaseExists(db)) catalog.createDatabase(db, Map.empty)
    val schemas = TableCopy.targetSchemas(source)
    val created = catalog.createTable(db, table, schemas.last)
    schemas.init.foreach(created.schemaManager.publish)
    created
  }

  /** The files, copied by Spark's tasks, each through the tables' own file I/O. */
  private def copyFiles(files: Seq[FileCopy], source: FileStoreTable, target: FileStoreTable): Unit = if (files.nonEmpty) {
    val context = SparkSession.active.sparkContext
    val (from, to) = (source.io, target.io)
    context.parallelize(files, files.size.min(context.defaultParallelism))
      .foreach(f => from.copy(new Path(f.from), to, new Path(f.to)))
  }
}
