package paimonspark.format

/**
 * The columns Paimon gives each row of a table with `row-tracking.enabled` (its `SpecialFields`):
 * `_ROW_ID`, the row's id for life, and `_SEQUENCE_NUMBER`, the snapshot that last wrote it. A file
 * Paimon appended holds neither: its rows' ids count from the manifest's `_FIRST_ROW_ID`, and its
 * number is the file's max sequence number, which the commit set to the snapshot's id. Files that
 * Paimon's compaction rewrote hold both, which it read from the files it compacted.
 */
object RowTrackingFields {
  val RowId: DataField = DataField(Int.MaxValue - 5, "_ROW_ID", DataTypes.bigint.withNullable(false))
  val SequenceNumber: DataField = KeyValueFields.SequenceNumber

  /** Paimon's order (`SpecialFields.rowTypeWithRowTracking`): after the table's columns. */
  val all: Seq[DataField] = Seq(RowId, SequenceNumber)
  val names: Set[String] = all.map(_.name).toSet

  /** The columns a data file may hold: the table's `fields`, then both, which files Paimon appended lack. */
  def fileFields(fields: Seq[DataField]): Seq[DataField] =
    fields ++ all.map(f => f.copy(dataType = f.dataType.withNullable(true)))
}
