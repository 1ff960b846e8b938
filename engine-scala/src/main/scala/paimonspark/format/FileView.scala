package paimonspark.format

/**
 * How a data file written with an older schema is read as a newer one. Fields are matched by id at
 * every depth, as Paimon matches them, so a renamed column keeps its data. The view of a file has
 * the read fields' shape (same fields, same order, at every depth), the file's names, and the
 * file's types where a column's type changed since: a reader that matches columns by name then
 * returns rows laid out as the read schema, and only changed types are left to cast. A read field
 * the file lacks gets a name no file column can have, so the reader fills it with nulls.
 */
object FileView {
  /** Prefix of the names standing in for columns a file lacks. */
  val AbsentPrefix = "_PAIMON_ABSENT_"

  def of(read: Seq[DataField], written: Seq[DataField]): Seq[DataField] = {
    val byId = written.map(f => f.id -> f).toMap
    read.map { r =>
      byId.get(r.id) match {
        case Some(w) => r.copy(name = w.name, dataType = typeOf(r.dataType, w.dataType))
        case None => r.copy(name = s"$AbsentPrefix${r.id}")
      }
    }
  }

  private def typeOf(read: DataType, written: DataType): DataType = (read, written) match {
    case (r: RowType, w: RowType) => r.copy(fields = of(r.fields, w.fields))
    case (r: ArrayType, w: ArrayType) => r.copy(element = typeOf(r.element, w.element))
    case (r: MultisetType, w: MultisetType) => r.copy(element = typeOf(r.element, w.element))
    case (r: MapType, w: MapType) => r.copy(key = typeOf(r.key, w.key), value = typeOf(r.value, w.value))
    case (r, w) => w.withNullable(r.nullable)
  }
}
