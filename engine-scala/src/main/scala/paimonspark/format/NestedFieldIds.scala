package paimonspark.format

/**
 * Paimon's field ids of the nodes inside a column's arrays and maps (its `SpecialFields`): derived
 * from the column's id and the depth of the node, far above the ids of real fields.
 */
object NestedFieldIds {
  private val Base = Int.MaxValue / 4
  private val DepthLimit = 1 << 10

  def element(fieldId: Int, depth: Int): Int = Base + fieldId * DepthLimit + depth
  def key(fieldId: Int, depth: Int): Int = Base - fieldId * DepthLimit - depth
  def value(fieldId: Int, depth: Int): Int = Base + fieldId * DepthLimit + depth
}
