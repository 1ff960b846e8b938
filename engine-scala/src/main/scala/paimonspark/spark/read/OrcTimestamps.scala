package paimonspark.spark.read

import java.util.TimeZone

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Cast, Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types._

/**
 * ORC timestamps as Spark's ORC reader can give them. Paimon writes TIMESTAMP columns as ORC
 * `timestamp`, a wall clock: ORC moves it from the writer's JVM zone to the reader's. Spark's reader
 * refuses to read such a column as TIMESTAMP_NTZ, and reads it as TIMESTAMP: the instant that wall
 * clock names in the reading JVM's default zone. So such columns are requested as TIMESTAMP and then
 * turned back into the wall clock, in that same zone ([[OrcWallClock]]).
 *
 * TIMESTAMP_LTZ columns are ORC `timestamp with local time zone` (an instant). With Paimon's
 * `orc.timestamp-ltz.legacy.type` (its default) the writer put the instant's UTC wall clock there as
 * if it were a wall clock of its own zone, and Paimon's reader undoes that in the reader's zone: so
 * do we, with the same turn, taking the wall clock as UTC.
 */
object OrcTimestamps {
  /** `t` with every TIMESTAMP_NTZ in it as TIMESTAMP: the type to ask Spark's ORC reader for. */
  def requested(t: DataType): DataType = replace(t) { case TimestampNTZType => TimestampType }

  /** Whether values read as `requested(t)` need [[OrcWallClock]] to be of type `t`. */
  def needsTurn(t: DataType, legacyLtz: Boolean): Boolean = wallClock(t, legacyLtz) != t || requested(t) != t

  /** `t` with every timestamp that is a wall clock in the file as TIMESTAMP_NTZ. */
  private[read] def wallClock(t: DataType, legacyLtz: Boolean): DataType =
    replace(t) { case TimestampType if legacyLtz => TimestampNTZType }

  private def replace(t: DataType)(f: PartialFunction[DataType, DataType]): DataType = t match {
    case s: StructType => StructType(s.fields.map(field => field.copy(dataType = replace(field.dataType)(f))))
    case a: ArrayType => a.copy(elementType = replace(a.elementType)(f))
    case m: MapType => m.copy(keyType = replace(m.keyType)(f), valueType = replace(m.valueType)(f))
    case other => f.applyOrElse(other, identity[DataType])
  }
}

/**
 * A value Spark's ORC reader gave (its timestamps instants in this JVM's default zone) as `dataType`:
 * the wall clocks `OrcTimestamps.wallClock` names are taken in the zone of the JVM that read the file,
 * which on a cluster is the executor's, not the driver's that planned the read.
 */
final case class OrcWallClock(child: Expression, dataType: DataType, legacyLtz: Boolean)
    extends UnaryExpression with CodegenFallback {
  @transient private lazy val turn: Expression = {
    val wall = Cast(child, OrcTimestamps.wallClock(dataType, legacyLtz), Some(TimeZone.getDefault.getID))
    // Wall clocks of TIMESTAMP_LTZ columns are UTC's; TIMESTAMP_NTZ ones stay as they are.
    Cast(wall, dataType, Some("UTC"))
  }

  override def nullable: Boolean = true
  override def eval(input: InternalRow): Any = turn.eval(input)
  override protected def withNewChildInternal(newChild: Expression): OrcWallClock = copy(child = newChild)
}
