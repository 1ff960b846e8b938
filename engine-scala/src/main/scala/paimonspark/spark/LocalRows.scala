package paimonspark.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.LocalScan
import org.apache.spark.sql.types.StructType

/** Rows computed on the driver: what procedures return and system tables read (Spark plans them as a local scan). */
final case class LocalRows(readSchema: StructType, rows: Array[InternalRow]) extends LocalScan
