package paimonspark.spark.write

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{ApplyFunctionExpression, Literal}
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction
import org.apache.spark.sql.paimon.TableFrames
import org.apache.spark.sql.types.{IntegerType, StructField, StructType}

import paimonspark.{InvalidOptionException, SnapshotNotFoundException, UnsupportedFeatureException}
import paimonspark.format.TablePaths
import paimonspark.format.metadata.FileIdentifier
import paimonspark.spark.{SparkSchemas, SparkTable}
import paimonspark.spark.catalog.BucketFunction
import paimonspark.table.{FileStoreTable, KeyLayout, Predicate, TableFeatures, TableOptions}
import paimonspark.table.scan.ScanPlanner
import paimonspark.table.write.{Bucketing, OverwriteScope, PrimaryKeyWriter, WriteRestore}

/**
 * Paimon's `rescale`: the selected partitions of a fixed-bucket (or postpone-bucket) table, read at one snapshot, are
 * written again into `buckets` buckets (the table's `bucket` unless given), one task per bucket, in
 * one OVERWRITE commit. The schema is not changed: ALTER TABLE sets the count new partitions get,
 * and a partition keeps the count its files were written with until it is rescaled. The commit
 * fails if any commit since the read added or removed files of those partitions (the strict mode
 * Paimon's procedure asks for). No changelog is written: the rows do not change.
 */
object Rescale {
  /** Returns the OVERWRITE snapshot's id, or None when the selected partitions hold no file. */
  def run(table: FileStoreTable, buckets: Option[Int], partitions: Option[Predicate]): Option[Long] = {
    val postpone = table.options.bucket == TablePaths.PostponeBucket
    if (!table.isPrimaryKeyTable || (table.options.bucket <= 0 && !postpone)) {
      throw new UnsupportedFeatureException(s"rescale: table ${table.name} has bucket = ${table.options.bucket}; only " +
        "primary-key tables with a fixed bucket count (bucket > 0) or postpone buckets are rescaled", TableOptions.Bucket)
    }
    if (postpone && buckets.isEmpty) throw new InvalidOptionException("bucket_num",
      s"rescale: table ${table.name}: When rescaling postpone bucket tables, you must provide the resulting bucket number.")
    val target = buckets.getOrElse(table.options.bucket)
    if (target <= 0) throw new InvalidOptionException("bucket_num", s"rescale: bucket_num must be positive, not $target")
    TableFeatures.requireWritable(table)
    val snapshot = table.currentSnapshot().getOrElse(throw new SnapshotNotFoundException(
      s"rescale: Table ${table.name} has no snapshot, no need to rescale.", "latest"))
    // Rows still in a postpone bucket are not read, so rewriting their partition would lose them.
    if (postpone) ScanPlanner.forMetadata(table).plan(Some(snapshot), partitions).find(_.bucket == TablePaths.PostponeBucket).foreach { s =>
      throw new UnsupportedFeatureException(s"rescale: table ${table.name} has rows in the postpone bucket of partition " +
        s"'${table.partitionPath(s.partitionBytes)}', which a rescale would not read; CALL sys.compact moves them into " +
        "buckets first", TableOptions.Bucket)
    }
    val splits = new ScanPlanner(table).plan(Some(snapshot), partitions)
    if (splits.isEmpty) None
    else {
      val read = splits.flatMap(s => s.files.map(f => FileIdentifier.of(s.partitionBytes, s.bucket, f))).toSet
      val rescaled = table.withDynamicOptions(Map(TableOptions.Bucket -> target.toString, "changelog-producer" -> "none"))
      val session = SparkSession.active
      val frame = TableFrames.of(session, new SparkTable(table.readingAt(snapshot), table.name))
      val selected = partitions.fold(frame)(p => frame.where(TableRewrite.partitionColumn(frame, table, p)))
      val clustered = selected.repartition(session.sessionState.conf.numShufflePartitions,
        table.schema.partitionKeys.map(TableRewrite.quoted(frame, _)) :+ bucket(rescaled, target): _*)
      val writers = new PrimaryKeyWriterFactory(rescaled, WriteRestore.Empty, Bucketing.Fixed(target), compaction = None)
      val (id, added) = TableRewrite.commit(table, clustered, writers, OverwriteScope.PartitionsOf(read))
      // As after any write, the buckets written are compacted inline unless `write-only` (or postponed).
      if (!table.options.writeOnly && !postpone) {
        CompactJob.run(table, None, full = false, Some(added.map(e => PrimaryKeyWriter.sequenceKey(e.partition, e.bucket)).toSet))
      }
      id
    }
  }

  /** Paimon's bucket of a row's bucket key among `buckets`, as the writers compute it. */
  private def bucket(table: FileStoreTable, buckets: Int) = {
    val keys = KeyLayout.of(table.name, table.schema).bucketKeys
    val types = SparkSchemas.sparkSchema(table.schema)
    val function = BucketFunction.bind(StructType(StructField("buckets", IntegerType) +: keys.map(types(_))))
    TableFrames.column(ApplyFunctionExpression(function.asInstanceOf[ScalarFunction[_]],
      Literal(buckets) +: keys.map(k => UnresolvedAttribute(Seq(k)))))
  }
}
