package paimonspark.interop

import java.time.LocalDateTime

import scala.collection.mutable

/**
 * What a primary-key table holds by Paimon's rules, whatever wrote, compacted or read it: the oracle
 * of [[DifferentialSuite]]. Rows are plain values (Int, Long, String, LocalDateTime) in column order;
 * `keys` name the primary key's columns. `aggregates` gives the aggregation engine's function of a
 * column (`sum`, `max`); a column without one takes `last_non_null_value`, as Paimon's default.
 */
final class TableModel(val engine: String, keys: Seq[String], initial: Seq[String], aggregates: Map[String, String]) {
  private var names: Vector[String] = initial.toVector
  private val rows = mutable.Map.empty[Seq[Any], Vector[Any]]

  def columns: Seq[String] = names

  /** The table's rows now, sorted as [[JavaPaimon.sorted]] sorts. */
  def snapshot: Seq[Seq[Any]] = JavaPaimon.sorted(rows.values.toSeq)

  def keyOf(row: Seq[Any]): Seq[Any] = keys.map(k => row(names.indexOf(k)))

  def holds(key: Seq[Any]): Boolean = rows.contains(key)

  def keysHeld: Seq[Seq[Any]] = rows.keys.toSeq.sortBy(_.mkString("\u0001"))

  /** A row of every column written with its key: merged into what the key holds, as the engine merges. */
  def upsert(row: Seq[Any]): Unit = {
    val key = keyOf(row)
    val merged = rows.get(key) match {
      case None if engine == "aggregation" => merge(Vector.fill(row.size)(null), row.toVector)
      case None => row.toVector
      case Some(_) if engine == "first-row" => rows(key)
      case Some(_) if engine == "deduplicate" => row.toVector
      case Some(old) => merge(old, row.toVector)
    }
    rows(key) = merged
  }

  /** Partial-update and aggregation: column by column, a null keeps the old value. */
  private def merge(old: Vector[Any], row: Vector[Any]): Vector[Any] = names.indices.map { i =>
    (old(i), row(i), if (engine == "aggregation") aggregates.get(names(i)) else None) match {
      case (o, null, _) => o
      case (null, n, _) => n
      case (o: Long, n: Long, Some("sum")) => o + n
      case (o: LocalDateTime, n: LocalDateTime, Some("max")) => if (n.isAfter(o)) n else o
      case (_, n, _) => n
    }
  }.toVector

  def delete(key: Seq[Any]): Unit = rows.remove(key)

  /** UPDATE ... SET column = value on the keys held (a non-null value: partial-update would keep the old one). */
  def update(column: String, value: Any, keys: Seq[Seq[Any]]): Unit = keys.filter(rows.contains).foreach { k =>
    rows(k) = rows(k).updated(names.indexOf(column), value)
  }

  def addColumn(name: String): Unit = {
    names :+= name
    rows.mapValuesInPlace((_, row) => row :+ null)
  }
}
