package paimonspark.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{SupportsRead, SupportsWrite, Table, TableCapability}
import org.apache.spark.sql.connector.catalog.TableCapability._
import org.apache.spark.sql.connector.expressions.{Expressions, Transform}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.spark.read.PaimonScanBuilder
import paimonspark.spark.write.PaimonWriteBuilder
import paimonspark.table.{FileStoreTable, KeyLayout}

/**
 * A Paimon table as Spark sees it. A table opened by path (`spark.read.format("paimon")`) does not
 * offer batch writes, so Spark hands path writes to [[PaimonSource]], which handles every save mode.
 */
class SparkTable(val store: FileStoreTable, tableName: String, pathBased: Boolean = false)
    extends Table with SupportsRead with SupportsWrite {

  override def name(): String = tableName

  override def schema(): StructType = SparkSchemas.sparkSchema(store.schema)

  override def partitioning(): Array[Transform] =
    store.schema.partitionKeys.map(k => Expressions.identity(k): Transform).toArray

  override def properties(): util.Map[String, String] =
    (store.schema.options ++ Map("provider" -> "paimon") ++ store.schema.comment.map("comment" -> _)).asJava

  override def capabilities(): util.Set[TableCapability] =
    (if (pathBased) Set(BATCH_READ) else Set(BATCH_READ, BATCH_WRITE, TRUNCATE, OVERWRITE_BY_FILTER, OVERWRITE_DYNAMIC)).asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    new PaimonScanBuilder(store)
  }

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    // Tables written by other engines may use layouts this one cannot write yet.
    KeyLayout.of(tableName, store.schema)
    new PaimonWriteBuilder(this)
  }
}
