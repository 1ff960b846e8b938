package paimonspark.table.scan

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import paimonspark.format.metadata.TableSchema
import paimonspark.table.{BucketFunctionType, KeyLayout, Predicate, TableOptions}

/**
 * The buckets a filter can match in a table with fixed buckets (primary-key or bucketed append):
 * when it pins every bucket-key column to one or a few values (`=`, `IN`, under `AND`), only the
 * buckets of those keys by the table's bucket function, which is what makes a point lookup read one
 * bucket. None means every bucket. The buckets depend on the bucket count, which a rescaled table's
 * partitions need not share.
 */
object BucketFilter {
  private val MaxKeys = 1000

  /** For a filter that pins the bucket key: the buckets it matches among a given number of buckets. */
  def buckets(table: String, schema: TableSchema, filter: Predicate): Option[Int => Set[Int]] = {
    if (TableOptions(schema.options).bucket <= 0) return None
    val layout = KeyLayout.of(table, schema)
    val fields = layout.bucketKeys.map(schema.fieldNames.indexOf(_))
    val pinned = values(filter)
    if (!fields.forall(pinned.contains)) None
    else {
      val combinations = fields.foldLeft(Seq(Seq.empty[Any])) { (acc, f) =>
        for (prefix <- acc; v <- pinned(f).toSeq) yield prefix :+ v
      }
      if (combinations.size > MaxKeys || combinations.exists(_.contains(null))) None
      else {
        val rows = combinations.map { c =>
          val row = new GenericInternalRow(schema.fields.size)
          fields.zip(c).foreach { case (f, v) => row.update(f, v) }
          row
        }
        val function = BucketFunctionType.bucketer(schema, layout.bucketKeys)
        val matched = scala.collection.mutable.Map.empty[Int, Set[Int]]
        Some(total => matched.getOrElseUpdate(total, rows.map(function.bucket(_, total)).toSet))
      }
    }
  }

  /** Column index -> the values a row must have there to match, for conjuncts of `=` and `IN`. */
  private def values(p: Predicate): Map[Int, Set[Any]] = p match {
    case Predicate.Compare(Predicate.Eq, field, literal) => Map(field -> Set(literal))
    case Predicate.In(field, literals) => Map(field -> literals.toSet)
    case Predicate.And(l, r) =>
      val (a, b) = (values(l), values(r))
      (a.keySet ++ b.keySet).map { f =>
        f -> ((a.get(f), b.get(f)) match {
          case (Some(x), Some(y)) => x.intersect(y)
          case (x, y) => x.orElse(y).get
        })
      }.toMap
    case _ => Map.empty
  }
}
