package paimonspark.spark.procedures

import java.util

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.{BoundProcedure, ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types.{DataType, StructField, StructType}

import paimonspark.InvalidOptionException
import paimonspark.spark.LocalRows
import paimonspark.table.FileStoreTable
import paimonspark.table.options.PaimonOptions

/**
 * What every procedure shares: its parameters in Paimon's names and order, argument access by
 * name, and its result rows. Arguments are checked before anything is changed.
 */
/** A procedure parameter; `default` is Spark SQL text (`NULL` when optional without a value). */
final case class Param(name: String, dataType: DataType, default: Option[String] = None) {
  def spark: ProcedureParameter = default.fold(ProcedureParameter.in(name, dataType))(d =>
    ProcedureParameter.in(name, dataType).defaultValue(d)).build()
}

abstract class BaseProcedure(tables: String => FileStoreTable) extends UnboundProcedure with BoundProcedure {
  protected def params: Seq[Param]
  protected def output: Seq[StructField]
  protected def run(args: Args): Seq[InternalRow]

  override def parameters(): Array[ProcedureParameter] = params.map(_.spark).toArray
  override def bind(inputType: StructType): BoundProcedure = this
  override def isDeterministic: Boolean = false
  override def description(): String = s"Paimon's $name procedure"

  override def call(input: InternalRow): util.Iterator[Scan] = {
    val rows = run(new Args(input))
    util.List.of[Scan](LocalRows(StructType(output), rows.toArray)).iterator()
  }

  protected def required(name: String, t: DataType): Param = Param(name, t)
  protected def optional(name: String, t: DataType): Param = Param(name, t, Some("NULL"))

  final class Args(input: InternalRow) {
    private def index(name: String): Int = params.indexWhere(_.name == name)
    private def value(name: String): Option[Any] = {
      val i = index(name)
      if (input.isNullAt(i)) None else Some(input.get(i, params(i).dataType))
    }
    def string(name: String): Option[String] = value(name).map(_.toString)
    def long(name: String): Option[Long] = value(name).map(_.asInstanceOf[Number].longValue())
    def int(name: String): Option[Int] = value(name).map(_.asInstanceOf[Number].intValue())
    def boolean(name: String): Option[Boolean] = value(name).map(_.asInstanceOf[Boolean])
    def need[T](name: String, v: Option[T]): T =
      v.getOrElse(throw new InvalidOptionException(name, s"${BaseProcedure.this.name}: argument '$name' is required"))
    /**
     * The table the `table` argument names (`db.t`, `db.t$branch_b`), with the procedure's `options`
     * (`'k1=v1,k2=v2'`, table options for this call only, each checked as on ALTER) if it takes them.
     */
    def table: FileStoreTable = {
      val named = tables(need("table", string("table")))
      if (index("options") < 0) named else named.withDynamicOptions(options)
    }

    /** The `options` argument, `'k1=v1,k2=v2'`, each a table option checked as on ALTER. */
    def options: Map[String, String] = string("options").fold(Map.empty[String, String])(parseOptions)

    private def parseOptions(text: String): Map[String, String] = text.split(",").map(_.trim).filter(_.nonEmpty).map { pair =>
      pair.split("=", 2).map(_.trim) match {
        case Array(k, v) if k.nonEmpty =>
          PaimonOptions.get(k).getOrElse(throw new InvalidOptionException(k,
            s"${BaseProcedure.this.name}: unknown option '$k' in options => '$text'")).check(v)
          k -> v
        case _ => throw new InvalidOptionException("options",
          s"${BaseProcedure.this.name}: '$pair' in options => '$text' is not key=value")
      }
    }.toMap
  }
}
