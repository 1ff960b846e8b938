package paimonspark.spark.read

import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, Expression}
import org.apache.spark.sql.types.{DataType, StringType}

/**
 * The casts that turn a value read in a column's old type into its type now, with the results
 * Paimon's readers give for the same file: numbers wrap and truncate as Java's casts do (Spark's
 * legacy casts), and a string that does not parse as the new type fails the read naming the value,
 * as Paimon's string parsing throws (Spark's ANSI casts), instead of becoming null.
 */
object PaimonCasts {
  def cast(value: Expression, to: DataType, timeZone: String): Expression = {
    val parsing = value.dataType.isInstanceOf[StringType] && !to.isInstanceOf[StringType]
    Cast(value, to, Some(timeZone), if (parsing) EvalMode.ANSI else EvalMode.LEGACY)
  }
}
