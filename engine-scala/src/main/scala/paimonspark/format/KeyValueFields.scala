package paimonspark.format

/**
 * The columns of a primary-key data file, in file order: `_KEY_<k>` for each primary-key column
 * that is not a partition column, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then every table column.
 * Paimon readers since 1.0 rebuild the key from the value columns, older ones read `_KEY_*`;
 * both are written.
 */
object KeyValueFields {
  val KeyPrefix = "_KEY_"
  /** Key columns take the id of their table column plus this (`Integer.MAX_VALUE / 2`). */
  val KeyFieldIdStart: Int = Int.MaxValue / 2

  val SequenceNumber: DataField = DataField(Int.MaxValue - 1, "_SEQUENCE_NUMBER", DataTypes.bigint.withNullable(false))
  val ValueKind: DataField = DataField(Int.MaxValue - 2, "_VALUE_KIND", DataTypes.tinyint.withNullable(false))

  def keyField(column: DataField): DataField =
    DataField(KeyFieldIdStart + column.id, KeyPrefix + column.name, column.dataType)

  /** The fields of a data file of a table whose trimmed primary key is `keys`. */
  def fileFields(keys: Seq[DataField], values: Seq[DataField]): Seq[DataField] =
    keys.map(keyField) ++ Seq(SequenceNumber, ValueKind) ++ values
}
