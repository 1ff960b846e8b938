package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.InvalidIdentifierException
import paimonspark.catalog.Catalog
import paimonspark.spark.system.CatalogSystemTables
import paimonspark.table.FileStoreTable

/**
 * `CALL sys.repair(database_or_table)`: Paimon's repair of a metastore catalog from its warehouse:
 * the whole catalog when the argument is omitted or blank, else each database (`db`) or table
 * (`db.t`) of a comma list. The filesystem catalog has nothing to repair and refuses, as Paimon's.
 */
final class RepairProcedure(tables: String => FileStoreTable, catalog: () => Catalog) extends BaseProcedure(tables) {
  override def name(): String = "repair"
  override protected val params = Seq(optional("database_or_table", StringType))
  override protected val output = Seq(StructField("result", BooleanType))

  override protected def run(args: Args): Seq[InternalRow] = {
    val paimon = catalog()
    args.string("database_or_table").map(_.trim).filter(_.nonEmpty) match {
      case None => paimon.repairCatalog()
      case Some(list) =>
        val targets = list.split(",").map(_.trim).map { item =>
          item.split("\\.") match {
            case Array(db, _*) if db == CatalogSystemTables.Database => throw new InvalidIdentifierException(item,
              s"repair: database $db holds the catalog's system tables; it is not stored, so not repaired")
            case Array(db) => () => paimon.repairDatabase(db)
            case Array(db, t) => () => paimon.repairTable(db, t)
            case _ => throw new InvalidIdentifierException(item, s"repair: cannot get splits from '$item' to get " +
              "database and table")
          }
        }
        targets.foreach(_())
    }
    Seq(InternalRow(true))
  }
}
