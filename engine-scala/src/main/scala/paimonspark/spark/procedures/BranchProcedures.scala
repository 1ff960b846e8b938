package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._

import paimonspark.InvalidOptionException
import paimonspark.table.FileStoreTable
import paimonspark.table.history.FastForward

/** `CALL sys.create_branch(table => 'db.t', branch => 'b', tag => 'x')`: empty without `tag`. */
final class CreateBranchProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "create_branch"
  override protected val params = Seq(required("table", StringType), required("branch", StringType),
    optional("tag", StringType), optional("ignoreIfExists", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val branches = args.table.branchManager
    val branch = args.need("branch", args.string("branch"))
    val ignore = args.string("ignoreIfExists").exists(_.trim.equalsIgnoreCase("true"))
    if (!(ignore && branches.exists(branch))) branches.create(branch, args.string("tag"))
    Seq(InternalRow(true))
  }
}

/** `CALL sys.delete_branch(table => 'db.t', branch => 'b')` (a comma-separated list too). */
final class DeleteBranchProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "delete_branch"
  override protected val params = Seq(required("table", StringType), required("branch", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    val branches = args.table.branchManager
    val text = args.need("branch", args.string("branch"))
    val names = text.split(",").map(_.trim).filter(_.nonEmpty).toSeq
    if (names.isEmpty) throw new InvalidOptionException("branch", s"$name: branch => '$text' names no branch")
    names.filterNot(branches.exists).headOption.foreach(n => throw branches.notFound(n))
    names.foreach(branches.delete)
    Seq(InternalRow(true))
  }
}

/** `CALL sys.fast_forward(table => 'db.t', branch => 'b')`: main becomes the branch. */
final class FastForwardProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "fast_forward"
  override protected val params = Seq(required("table", StringType), required("branch", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    FastForward.run(args.table, args.need("branch", args.string("branch")))
    Seq(InternalRow(true))
  }
}

/** `CALL sys.rename_branch(table => 'db.t', from_branch => 'a', to_branch => 'b')`. */
final class RenameBranchProcedure(tables: String => FileStoreTable) extends BaseProcedure(tables) {
  override def name(): String = "rename_branch"
  override protected val params = Seq(required("table", StringType), required("from_branch", StringType),
    required("to_branch", StringType))
  override protected val output = Seq(StructField("result", BooleanType, nullable = false))

  override protected def run(args: Args): Seq[InternalRow] = {
    args.table.branchManager.rename(args.need("from_branch", args.string("from_branch")),
      args.need("to_branch", args.string("to_branch")))
    Seq(InternalRow(true))
  }
}
