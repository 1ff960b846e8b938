package paimonspark.table

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.{AtomicType, TypeRoot}
import paimonspark.format.metadata.TableSchema
import paimonspark.lsm.MergeEngineSpec

/**
 * How the rows of a table map to keys and buckets. `trimmedKeys` is the primary key without the
 * partition columns (what data files store as `_KEY_*` and sort by); `bucketKeys` are the columns
 * Paimon's bucket function hashes; `buckets` is N, or -1 for dynamic buckets (a HASH index, or for
 * a key without every partition column, the table's own keys: [[KeyLayout.crossPartition]]).
 */
final case class KeyLayout(primaryKeys: Seq[String], trimmedKeys: Seq[String], bucketKeys: Seq[String], buckets: Int)

object KeyLayout {
  private val PrimaryKeyOnly = Seq("merge-engine", "sequence.field", "sequence.field.sort-order",
    TableOptions.RowKindField, "ignore-delete", "partial-update.remove-record-on-delete", TableOptions.ChangelogProducerKey)

  /** The layout of a table; throws naming the table and the option or column at fault. */
  def of(table: String, schema: TableSchema): KeyLayout = {
    val options = TableOptions(schema.options)
    val pk = schema.primaryKeys
    if (pk.isEmpty) {
      PrimaryKeyOnly.find(schema.options.contains).foreach { k =>
        throw new InvalidOptionException(k, s"table $table: option '$k' applies to primary-key tables only, and this " +
          "table has no 'primary-key'")
      }
      return appendLayout(table, schema, options)
    }
    def fail(message: String) = throw new InvalidOptionException(TableOptions.PrimaryKey, s"table $table: $message")
    pk.groupBy(identity).collectFirst { case (k, ks) if ks.size > 1 => fail(s"primary-key names '$k' twice") }
    pk.foreach { k =>
      val field = schema.fields.find(_.name == k).getOrElse(fail(s"primary-key column '$k' is not a column of the table"))
      if (!field.dataType.isInstanceOf[AtomicType]) {
        fail(s"primary-key column '$k' has type ${field.dataType.sql}; only atomic types can be keys")
      }
    }
    if (crossPartition(schema) && schema.options.contains("sequence.field")) {
      throw new InvalidOptionException("sequence.field", s"table $table: You can not use sequence.field in " +
        s"cross partition update case (Primary key constraint '${pk.mkString("[", ", ", "]")}' not include all partition " +
        s"fields '${schema.partitionKeys.mkString("[", ", ", "]")}').")
    }
    val trimmed = pk.filterNot(schema.partitionKeys.contains)
    if (trimmed.isEmpty) fail("the primary key must have a column that is not a partition column")
    noBucketKeyWithDynamicBuckets(table, options)
    val bucketKeys = if (options.bucketKey.isEmpty) trimmed else options.bucketKey
    bucketKeys.find(k => !trimmed.contains(k)).foreach { k =>
      throw new InvalidOptionException(TableOptions.BucketKey, s"table $table: bucket-key column '$k' must be a " +
        s"primary-key column that is not a partition column (${trimmed.mkString(", ")})")
    }
    BucketFunctionType.check(table, schema, bucketKeys)
    options.rowKindField.foreach { f =>
      val isText = schema.fields.find(_.name == f).exists(_.dataType match {
        case a: AtomicType => a.root == TypeRoot.VarChar || a.root == TypeRoot.Char
        case _ => false
      })
      if (!isText) {
        throw new InvalidOptionException(TableOptions.RowKindField,
          s"table $table: rowkind.field '$f' must be a string column holding +I, -U, +U or -D")
      }
    }
    MergeEngineSpec.of(table, schema)
    KeyLayout(pk, trimmed, bucketKeys, options.bucket)
  }

  /**
   * A table without primary key: bucket-unaware (`bucket` = -1), or bucketed by `bucket-key` into N
   * fixed buckets, Paimon's bucketed append, whose files keep their order within each bucket.
   */
  private def appendLayout(table: String, schema: TableSchema, options: TableOptions): KeyLayout = {
    noBucketKeyWithDynamicBuckets(table, options)
    if (options.bucket == -1) return KeyLayout(Nil, Nil, Nil, -1)
    if (options.bucket < 1) {
      throw new UnsupportedFeatureException(s"table $table: option 'bucket'=${options.bucket} on a table without " +
        "primary key: The number of buckets needs to be greater than 0.", TableOptions.Bucket)
    }
    val bucketKeys = options.bucketKey
    if (bucketKeys.isEmpty) {
      throw new InvalidOptionException(TableOptions.BucketKey,
        s"table $table: You should define a 'bucket-key' for bucketed append mode.")
    }
    bucketKeys.foreach { k =>
      val field = schema.fields.find(_.name == k).getOrElse(throw new InvalidOptionException(TableOptions.BucketKey,
        s"table $table: bucket-key column '$k' is not a column of the table"))
      if (!field.dataType.isInstanceOf[AtomicType]) {
        throw new InvalidOptionException(TableOptions.BucketKey, s"table $table: nested type can not in bucket-key, " +
          s"in your table these key are [$k]")
      }
    }
    BucketFunctionType.check(table, schema, bucketKeys)
    KeyLayout(Nil, Nil, bucketKeys, options.bucket)
  }

  /**
   * Paimon's cross-partition update: a primary key without every partition column. With `bucket` =
   * -1 a write looks each key up where the table holds it ([[paimonspark.table.write.KeyLocations]]);
   * with fixed or postpone buckets, as in Paimon, nothing keeps a key in one partition but the input.
   */
  def crossPartition(schema: TableSchema): Boolean =
    schema.primaryKeys.nonEmpty && schema.partitionKeys.exists(p => !schema.primaryKeys.contains(p))

  private def noBucketKeyWithDynamicBuckets(table: String, options: TableOptions): Unit =
    if (options.bucket == -1 && options.bucketKey.nonEmpty) {
      throw new InvalidOptionException(TableOptions.BucketKey, s"table $table: Cannot define 'bucket-key' with bucket = " +
        "-1, please remove the 'bucket-key' setting or specify a bucket number.")
    }
}
