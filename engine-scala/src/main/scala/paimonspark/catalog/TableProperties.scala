package paimonspark.catalog

import paimonspark.format.metadata.TableSchema

/**
 * What a metastore keeps of a table with `sync-all-properties` (Paimon's `collectTableProperties`): its
 * options, and its primary key, partition columns and bucket key as comma-joined options where it has them.
 */
object TableProperties {
  def of(schema: TableSchema): Map[String, String] =
    schema.options ++ Seq("primary-key" -> schema.primaryKeys, "partition" -> schema.partitionKeys,
      "bucket-key" -> bucketKeys(schema)).collect { case (k, cols) if cols.nonEmpty => k -> cols.mkString(",") }

  /** Paimon's `TableSchema.bucketKeys`: the option, else the primary key less the partition columns. */
  private def bucketKeys(schema: TableSchema): Seq[String] =
    schema.options.get("bucket-key").map(_.split(",").map(_.trim).toSeq)
      .getOrElse(schema.primaryKeys.filterNot(schema.partitionKeys.contains))
}
