package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.InvalidOptionException
import paimonspark.table.FileStoreTable
import paimonspark.table.history.TagDeletion

/**
 * `CALL sys.delete_tag(table => 'db.t', tag => 'a,b')`: deletes the tags that exist, and the files
 * only they kept.
 */
final class DeleteTagProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "delete_tag"

  override protected val params = Seq(required("table", StringType), required("tag", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val table = args.table
    val text = args.need("tag", args.string("tag"))
    val names = text.split(",").map(_.trim).filter(_.nonEmpty).distinct.toSeq
    if (names.isEmpty) throw new InvalidOptionException("tag", s"$name: tag => '$text' names no tag")
    // As in Paimon, a name that is no tag is passed over (its procedure logs it), so that a script deleting
    // a tag runs again unchanged.
    TagDeletion.delete(table, names.filter(table.tagManager.exists))
    Seq(InternalRow(true))
  }
}
