package paimonspark.format.parquet

import java.util.ArrayList

import scala.annotation.nowarn

import org.apache.parquet.bytes.{BytesInput, BytesUtils, CapacityByteArrayOutputStream}
import org.apache.parquet.column.{ColumnDescriptor, Encoding, ParquetProperties}
import org.apache.parquet.column.page.{DictionaryPage, PageWriter}
import org.apache.parquet.column.statistics.{SizeStatistics, Statistics}
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder


/**
 * One column of a flat Parquet row group, buffered a page at a time and encoded in one pass over the
 * page's values: definition levels, dictionary ids or plain values, statistics. The bytes are the
 * ones parquet-mr's v1 column writers produce value by value (a dictionary while it pays, plain from
 * the page where it stops paying, with parquet-mr's first-page check), without its chain of calls
 * per value. Pages end at the page row limit, or once their plain size nears the page size.
 */
abstract class ColumnChunkWriter(val descriptor: ColumnDescriptor, props: ParquetProperties, dictionaryEnabled: Boolean) {
  private val optional = descriptor.getMaxDefinitionLevel > 0
  private val rowLimit = math.min(props.getPageRowCountLimit, props.getPageValueCountThreshold)
  // parquet-mr ends a page once less than a tenth of the page size is left.
  private val pageCut = props.getPageSizeThreshold - (props.getPageSizeThreshold * 0.1f).toLong
  protected val dictionaryLimit: Int = props.getDictionaryPageSizeThreshold
  private val allocator = props.getAllocator
  private val geospatial = GeospatialStatistics.newBuilder(descriptor.getPrimitiveType).build()
  private val levelEncoder = new RunLengthBitPackingHybridEncoder(1, 64, props.getPageSizeThreshold, allocator)
  private var levels = new Array[Boolean](64) // per value in the page: present (not null)
  private var pages: PageWriter = _

  /** Values in the page, nulls included, and the nulls among them. */
  protected var count = 0
  protected var nulls = 0
  /** The page's plain size as parquet-mr counts it to end pages. */
  protected var rawBytes = 0L

  // The dictionary's course through the chunk, as parquet-mr's fallback writer keeps it.
  private var fellBack = !dictionaryEnabled
  private var firstPage = true
  private var dictionaryUsed = false
  private var entriesUsed = 0

  /** Starts a row group's chunk on `writer`. */
  def bind(writer: PageWriter): Unit = {
    pages = writer
    fellBack = !dictionaryEnabled
    firstPage = true
    dictionaryUsed = false
    entriesUsed = 0
    clearDictionary()
  }

  final def addNull(): Unit = {
    nulls += 1
    added(present = false, 0)
  }

  /** Called by a subclass after it buffered a value of `plainSize` bytes (or a null). */
  protected final def added(present: Boolean, plainSize: Int): Unit = {
    if (optional) {
      if (count == levels.length) levels = java.util.Arrays.copyOf(levels, count * 2)
      levels(count) = present
    }
    count += 1
    rawBytes += plainSize
    if (count >= rowLimit || rawBytes >= pageCut) writePage()
  }

  /** Plain size of what the page buffers, and the pages written: the chunk's share of a row group's size. */
  def bufferedSize: Long = rawBytes + (if (pages == null) 0 else pages.getMemSize)

  /** Ends the chunk: its last page, then its dictionary page if its pages used one. */
  def finish(): Unit = {
    if (count > 0) writePage()
    if (dictionaryUsed && entriesUsed > 0) pages.writeDictionaryPage(new DictionaryPage(dictionaryPage(entriesUsed), entriesUsed, ColumnChunkWriter.Dictionary))
    pages = null
  }

  // Subclasses: the page's buffered values, encoded. A column without a dictionary keeps the defaults.
  protected def plainBytes(): BytesInput
  protected def statistics(): Statistics[_]
  protected def clearPage(): Unit
  protected def unencodedBytes: Long = 0L
  protected def clearDictionary(): Unit = ()
  /**
   * Looks up every value of the page in the dictionary, its id into `ids(i)` for the page's i-th
   * value (nulls not counted); false once the dictionary outgrew its limit.
   */
  protected def assignIds(): Boolean = false
  protected def dictionarySize: Int = 0
  protected def dictionaryByteSize: Long = 0L
  protected def dictionaryPage(entries: Int): BytesInput = BytesInput.empty()

  protected var ids = new Array[Int](1024)
  protected final def reserveIds(n: Int): Unit = if (ids.length < n) ids = new Array[Int](math.max(n, ids.length * 2))

  /** The page's ids: their bit width, then RLE / bit-packed runs. */
  private def idBytes(): BytesInput = {
    val width = BytesUtils.getWidthFromMaxInt(dictionarySize - 1)
    val rle = encoderOf(width)
    val values = count - nulls
    var i = 0
    while (i < values) { rle.writeInt(ids(i)); i += 1 }
    BytesInput.concat(BytesInput.from(Array(width.toByte)), rle.toBytes)
  }

  private var idEncoder: RunLengthBitPackingHybridEncoder = _
  private var idWidth = -1
  private def encoderOf(width: Int): RunLengthBitPackingHybridEncoder = {
    if (width != idWidth) {
      if (idEncoder != null) idEncoder.close()
      val slab = CapacityByteArrayOutputStream.initialSlabSizeHeuristic(64, dictionaryLimit, 10)
      idEncoder = new RunLengthBitPackingHybridEncoder(width, slab, dictionaryLimit, allocator)
      idWidth = width
    } else idEncoder.reset()
    idEncoder
  }

  private def writePage(): Unit = {
    val values = dictionaryOrPlain()
    val levelBytes = if (optional) {
      levelEncoder.reset()
      var i = 0
      while (i < count) { levelEncoder.writeInt(if (levels(i)) 1 else 0); i += 1 }
      val rle = levelEncoder.toBytes
      BytesInput.concat(BytesInput.fromInt(Math.toIntExact(rle.size)), rle)
    } else BytesInput.empty()
    val sizes = new SizeStatistics(descriptor.getPrimitiveType, unencodedBytes, new ArrayList[java.lang.Long](), new ArrayList[java.lang.Long]())
    pages.writePage(BytesInput.concat(levelBytes, values._1), count, count, statistics(), sizes, geospatial,
      ColumnChunkWriter.NoLevels, if (optional) Encoding.RLE else ColumnChunkWriter.NoLevels, values._2)
    firstPage = false
    count = 0
    nulls = 0
    rawBytes = 0
    clearPage()
  }

  private def dictionaryOrPlain(): (BytesInput, Encoding) = {
    if (!fellBack && assignIds()) {
      val encoded = idBytes()
      if (!firstPage || encoded.size + dictionaryByteSize < rawBytes) {
        entriesUsed = dictionarySize
        if (firstPage) dictionaryUsed = true
        return (encoded, ColumnChunkWriter.Dictionary)
      }
    }
    fellBack = true
    (plainBytes(), Encoding.PLAIN)
  }

  def close(): Unit = {
    levelEncoder.close()
    if (idEncoder != null) idEncoder.close()
  }
}

object ColumnChunkWriter {
  // What parquet-mr's own v1 writers name in the pages they write (deprecated names in its enum): the files must match.
  @nowarn("cat=deprecation") private val Dictionary = Encoding.PLAIN_DICTIONARY
  @nowarn("cat=deprecation") private val NoLevels = Encoding.BIT_PACKED
}
