package paimonspark.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.LocalScan
import org.apache.spark.sql.types.StructType

/** The rows a procedure returns (Spark only takes local scans as procedure output). */
final case class ProcedureResult(readSchema: StructType, rows: Array[InternalRow]) extends LocalScan
