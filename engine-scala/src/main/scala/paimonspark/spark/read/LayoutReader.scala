package paimonspark.spark.read

import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.execution.datasources.{PartitionedFile, SchemaColumnConvertNotSupportedException}
import org.apache.spark.sql.execution.datasources.v2.FilePartitionReaderFactory
import org.apache.spark.sql.vectorized.ColumnarBatch

import paimonspark.{CorruptFileException, PaimonError, StorageException}
import paimonspark.format.{DataFileFormat, FileTypeContradiction}
import paimonspark.fs.FileIO

/**
 * Spark's reader of one file format, then the casts from what it reads to the read schema. A file
 * the format's reader cannot parse (damaged, truncated, or of another format than its name says), or
 * that holds a column in a type its schema's does not map to (`check`, for a format whose reader
 * would convert it), fails the read with a [[CorruptFileException]] naming it; one its store refuses to
 * give (access denied) with a [[StorageException]].
 */
final class FormatReader(format: String, factory: FilePartitionReaderFactory, casts: ColumnCasts,
    check: (PartitionedFile, Configuration) => Unit = (_, _) => ()) extends Serializable {
  /** Decided on the driver: Spark's factories read the session's settings, which executors cannot. */
  val columnar: Boolean = factory.supportColumnarReads(null) && casts.columnar

  def rows(file: PartitionedFile, conf: Configuration): PartitionReader[InternalRow] =
    named(file, conf, casts.rows(factory.buildReader(file)))
  def batches(file: PartitionedFile, conf: Configuration): PartitionReader[ColumnarBatch] =
    named(file, conf, casts.batches(factory.buildColumnarReader(file)))

  private def named[T](file: PartitionedFile, conf: Configuration, open: => PartitionReader[T]): PartitionReader[T] = {
    val reader = naming(file) { check(file, conf); open }
    new PartitionReader[T] {
      override def next(): Boolean = naming(file)(reader.next())
      override def get(): T = reader.get()
      override def close(): Unit = reader.close()
    }
  }

  private def naming[A](file: PartitionedFile)(body: => A): A =
    try body catch {
      case e: PaimonError => throw e
      case NonFatal(e) if refused(e) => throw new StorageException(file.toPath.toString,
        s"Cannot read ${file.toPath}: its store refused access: ${e.getMessage}", e)
      case NonFatal(e) => throw new CorruptFileException(file.toPath.toString, e, contradiction(e).map(why =>
        s"Cannot read ${file.toPath}: its $why; the file contradicts its table's schema").getOrElse(
        s"Cannot read ${file.toPath} as a $format data file (damaged, truncated, or not $format): ${e.getMessage}"))
    }

  /** The store refused the read (credentials it does not take): the file may be whole. */
  private def refused(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists(_.isInstanceOf[java.nio.file.AccessDeniedException])

  /** The column a file holds in a type that does not hold the schema's (Spark's Parquet reader finds it, ours others). */
  private def contradiction(e: Throwable): Option[String] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).collectFirst {
    case c: SchemaColumnConvertNotSupportedException =>
      // Its column is the path's names as a list, "[a, b]".
      val column = c.getColumn.stripPrefix("[").stripSuffix("]").replace(", ", ".")
      s"column '$column' is stored as Parquet ${c.getPhysicalType}, which does not hold its ${c.getLogicalType.toUpperCase}"
    case c: FileTypeContradiction => c.getMessage
  }
}

/**
 * The reader of the files written in one column layout, giving rows of the read schema: columns
 * found by the layout's names, then cast where their type changed since. Each file is read by the
 * reader of its format, which its name says: a table may hold files of several formats (older Paimon
 * and Flink wrote ORC, `file.format` may change, `file.format.per.level` mixes them).
 */
final class LayoutReader(formats: Map[String, FormatReader], conf: ReaderConf, val io: FileIO) extends Serializable {
  val columnar: Boolean = formats.values.forall(_.columnar)

  /** The Hadoop configuration files are read with: opened through `io`, with the table's credentials. */
  private def hadoopConf: Configuration = conf.value.value

  private def reader(file: PartitionedFile): FormatReader = {
    val format = DataFileFormat.of(file.toPath.getName)
    formats.getOrElse(format, throw new IllegalStateException(s"no reader of $format files for ${file.toPath}"))
  }

  def rows(file: PartitionedFile): PartitionReader[InternalRow] = {
    conf.reset()
    io.opening(hadoopConf)(reader(file).rows(file, hadoopConf))
  }

  def batches(file: PartitionedFile): PartitionReader[ColumnarBatch] = {
    conf.reset()
    io.opening(hadoopConf)(reader(file).batches(file, hadoopConf))
  }
}
