package paimonspark.format.parquet

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.metadata.ParquetMetadata


/**
 * Which columns of one kind of file (a table's files of one level, say) Parquet wrote without their
 * dictionary in the files this JVM wrote last. Parquet builds a dictionary for every column and
 * drops it when it outgrows its page or does not shrink the data, re-encoding what it buffered: a
 * hash insert and more per value for nothing, about a quarter of the write path's CPU. The next files
 * of the kind write those columns plain from the start, as Parquet would have ended up writing them.
 * Every [[ProbeEvery]]th file builds every dictionary again, so a column whose data changed gets its
 * dictionary back; a file that kept a column's dictionary gives it back at once.
 */
final class DictionaryVerdicts {
  private val files = new AtomicLong()
  @volatile private var plainNow = Set.empty[String]

  /** The columns the last files wrote (or would have written) without a dictionary. */
  def plain: Set[String] = plainNow

  /** The columns a new file writes plain: none in a probing file. */
  def plainColumns(): Set[String] =
    if (!DictionaryVerdicts.enabled || files.getAndIncrement() % DictionaryVerdicts.ProbeEvery == 0) Set.empty
    else plainNow

  /**
   * What a closed file showed: columns with a dictionary for all their pages keep it; columns it
   * tried a dictionary for and wrote (partly) without one are written plain from now on.
   */
  def record(footer: ParquetMetadata, writtenPlain: Set[String]): Unit = {
    val chunks = footer.getBlocks.asScala.flatMap(_.getColumns.asScala).filter(_.getPath.size == 1)
    val (fellBack, kept) = chunks.filterNot(c => writtenPlain(c.getPath.toArray.head)).partition { c =>
      Option(c.getEncodingStats).exists(_.hasNonDictionaryEncodedPages)
    }
    val dropped = fellBack.map(_.getPath.toArray.head).toSet
    synchronized { plainNow = plainNow ++ dropped -- (kept.map(_.getPath.toArray.head).toSet -- dropped) }
  }
}

object DictionaryVerdicts {
  val ProbeEvery = 16
  private val kinds = new ConcurrentHashMap[String, DictionaryVerdicts]()
  // Benches compare against Parquet's own way with -Dpaimonspark.parquet.every-dictionary=true.
  @volatile private var enabled = !java.lang.Boolean.getBoolean("paimonspark.parquet.every-dictionary")

  /** The kind of a table's data or changelog files (`files`) of one schema and level. */
  def kind(files: String, schemaId: Long, level: Int): String = s"$files|$schemaId|$level"

  /** The verdicts of one kind of file, shared by the writers of this JVM. */
  def of(kind: String): DictionaryVerdicts = kinds.computeIfAbsent(kind, _ => new DictionaryVerdicts)

  /** Runs `body` with every file building every dictionary, as Parquet alone does (property tests compare both). */
  def disabledDuring[A](body: => A): A = {
    val was = enabled
    enabled = false
    try body finally enabled = was
  }
}
