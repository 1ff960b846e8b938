package paimonspark.spark.extensions

import java.time.Duration

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.paimon.CatalogLookup
import org.apache.spark.sql.types.StringType

import paimonspark.UnsupportedFeatureException
import paimonspark.spark.SparkTable
import paimonspark.spark.procedures.CreateTagProcedure
import paimonspark.table.FileStoreTable
import paimonspark.table.history.TagDeletion

/** A tag statement of [[PaimonSqlParser]]: its table is named as Spark names tables (current catalog and database). */
sealed trait TagCommand extends LeafRunnableCommand {
  def table: Seq[String]

  protected def store(session: SparkSession): FileStoreTable = CatalogLookup.load(session, table) match {
    case Some(t: SparkTable) => t.store
    case Some(_) => throw new UnsupportedFeatureException(s"${table.mkString(".")} is not a Paimon table (or is one of " +
      "its system tables): tag statements are for Paimon tables and their branches")
    case None => throw new NoSuchTableException(table)
  }
}

/** `SHOW TAGS t`: one row per tag, column `tag`, by name. */
final case class ShowTags(table: Seq[String]) extends TagCommand {
  override val output: Seq[Attribute] = Seq(AttributeReference("tag", StringType, nullable = false)())
  override def run(session: SparkSession): Seq[Row] = store(session).tagManager.list().map(_._1).sorted.map(Row(_))
}

/**
 * `ALTER TABLE t CREATE TAG` (the name must be free, unless `IF NOT EXISTS`, which then does
 * nothing) and `[CREATE OR] REPLACE TAG` (which creates a missing tag, as Paimon's does): the tag
 * is on snapshot `version`, else the latest, and kept `retain` if given.
 */
final case class CreateTag(table: Seq[String], tag: String, version: Option[Long], retain: Option[Duration],
    replace: Boolean, ifNotExists: Boolean) extends TagCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val store = this.store(session)
    val tags = store.tagManager
    val exists = tags.exists(tag)
    if (!(exists && ifNotExists)) {
      val snapshot = CreateTagProcedure.snapshotToTag(store, version, "ALTER TABLE ... TAG")
      if (exists && replace) tags.replace(tag, snapshot, retain) else tags.create(tag, snapshot, retain)
    }
    Nil
  }
}

/** `ALTER TABLE t DELETE TAG [IF EXISTS] a, b`: as `delete_tag`, a name that is no tag is passed over, as in Paimon. */
final case class DeleteTag(table: Seq[String], tags: Seq[String], ifExists: Boolean) extends TagCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val store = this.store(session)
    TagDeletion.delete(store, tags.distinct.filter(store.tagManager.exists))
    Nil
  }
}

/** `ALTER TABLE t RENAME TAG a TO b`. */
final case class RenameTag(table: Seq[String], from: String, to: String) extends TagCommand {
  override def run(session: SparkSession): Seq[Row] = {
    store(session).tagManager.rename(from, to)
    Nil
  }
}
