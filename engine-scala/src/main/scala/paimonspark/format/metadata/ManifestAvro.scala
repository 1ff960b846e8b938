package paimonspark.format.metadata

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}
import java.nio.ByteBuffer

import org.apache.avro.Schema
import org.apache.avro.file.{CodecFactory, DataFileStream, DataFileWriter}
import org.apache.avro.generic.{GenericData, GenericDatumReader, GenericDatumWriter, GenericRecord}

import scala.jdk.CollectionConverters._

/**
 * Avro codecs of manifest lists (`ManifestFileMeta` rows) and manifests (`ManifestEntry` rows) with
 * the field lists of Paimon 1.4.2. Readers look fields up by name in the writer's schema, so files
 * from pypaimon (other record names, extra fields) and older writers (fewer fields) read the same.
 */
object ManifestAvro {
  private val Namespace = "org.apache.paimon.avro.generated"
  val EntryVersion = 2
  val FileMetaVersion = 2

  private[format] def field(name: String, tpe: String): String = s"""{"name":"$name","type":$tpe}"""
  private[format] def optional(name: String, tpe: String): String =
    s"""{"name":"$name","type":["null",$tpe],"default":null}"""
  private[format] def record(name: String, fields: String*): String =
    s"""{"type":"record","name":"$name","namespace":"$Namespace","fields":[${fields.mkString(",")}]}"""
  private def stats(name: String): String = record(name,
    field("_MIN_VALUES", "\"bytes\""), field("_MAX_VALUES", "\"bytes\""),
    optional("_NULL_COUNTS", """{"type":"array","items":["null","long"]}"""))
  private val StringArray = """{"type":"array","items":"string"}"""

  val EntrySchema: Schema = new Schema.Parser().parse(record("record",
    field("_VERSION", "\"int\""), field("_KIND", "\"int\""), field("_PARTITION", "\"bytes\""),
    field("_BUCKET", "\"int\""), field("_TOTAL_BUCKETS", "\"int\""),
    field("_FILE", record("record__FILE",
      field("_FILE_NAME", "\"string\""), field("_FILE_SIZE", "\"long\""), field("_ROW_COUNT", "\"long\""),
      field("_MIN_KEY", "\"bytes\""), field("_MAX_KEY", "\"bytes\""),
      field("_KEY_STATS", stats("record__FILE__KEY_STATS")),
      field("_VALUE_STATS", stats("record__FILE__VALUE_STATS")),
      field("_MIN_SEQUENCE_NUMBER", "\"long\""), field("_MAX_SEQUENCE_NUMBER", "\"long\""),
      field("_SCHEMA_ID", "\"long\""), field("_LEVEL", "\"int\""), field("_EXTRA_FILES", StringArray),
      optional("_CREATION_TIME", """{"type":"long","logicalType":"timestamp-millis"}"""),
      optional("_DELETE_ROW_COUNT", "\"long\""), optional("_EMBEDDED_FILE_INDEX", "\"bytes\""),
      optional("_FILE_SOURCE", "\"int\""), optional("_VALUE_STATS_COLS", StringArray),
      optional("_EXTERNAL_PATH", "\"string\""), optional("_FIRST_ROW_ID", "\"long\""),
      optional("_WRITE_COLS", StringArray)))))

  val FileMetaSchema: Schema = new Schema.Parser().parse(record("record",
    field("_VERSION", "\"int\""), field("_FILE_NAME", "\"string\""), field("_FILE_SIZE", "\"long\""),
    field("_NUM_ADDED_FILES", "\"long\""), field("_NUM_DELETED_FILES", "\"long\""),
    field("_PARTITION_STATS", stats("record__PARTITION_STATS")), field("_SCHEMA_ID", "\"long\""),
    optional("_MIN_BUCKET", "\"int\""), optional("_MAX_BUCKET", "\"int\""),
    optional("_MIN_LEVEL", "\"int\""), optional("_MAX_LEVEL", "\"int\""),
    optional("_MIN_ROW_ID", "\"long\""), optional("_MAX_ROW_ID", "\"long\"")))

  // ---- writing ----

  def writeEntries(entries: Seq[ManifestEntry], compression: String): Array[Byte] =
    writeRecords(EntrySchema, entries.map(entryRecord), compression)

  def writeFileMetas(metas: Seq[ManifestFileMeta], compression: String): Array[Byte] =
    writeRecords(FileMetaSchema, metas.map(fileMetaRecord), compression)

  private[format] def writeRecords(schema: Schema, records: Seq[GenericRecord], compression: String): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val writer = new DataFileWriter[GenericRecord](new GenericDatumWriter[GenericRecord](schema))
    writer.setCodec(codec(compression))
    writer.create(schema, out)
    records.foreach(writer.append)
    writer.close()
    out.toByteArray
  }

  private def codec(name: String): CodecFactory = name.toLowerCase match {
    case "zstd" => CodecFactory.zstandardCodec(1)
    case "none" | "uncompressed" => CodecFactory.nullCodec()
    case other => CodecFactory.fromString(other)
  }

  private def entryRecord(e: ManifestEntry): GenericRecord = {
    val r = new GenericData.Record(EntrySchema)
    r.put("_VERSION", EntryVersion)
    r.put("_KIND", e.kind)
    r.put("_PARTITION", ByteBuffer.wrap(e.partition))
    r.put("_BUCKET", e.bucket)
    r.put("_TOTAL_BUCKETS", e.totalBuckets)
    r.put("_FILE", fileRecord(EntrySchema.getField("_FILE").schema(), e.file))
    r
  }

  private def fileRecord(schema: Schema, f: DataFileMeta): GenericRecord = {
    val r = new GenericData.Record(schema)
    r.put("_FILE_NAME", f.fileName)
    r.put("_FILE_SIZE", f.fileSize)
    r.put("_ROW_COUNT", f.rowCount)
    r.put("_MIN_KEY", ByteBuffer.wrap(f.minKey))
    r.put("_MAX_KEY", ByteBuffer.wrap(f.maxKey))
    r.put("_KEY_STATS", statsRecord(schema.getField("_KEY_STATS").schema(), f.keyStats))
    r.put("_VALUE_STATS", statsRecord(schema.getField("_VALUE_STATS").schema(), f.valueStats))
    r.put("_MIN_SEQUENCE_NUMBER", f.minSequenceNumber)
    r.put("_MAX_SEQUENCE_NUMBER", f.maxSequenceNumber)
    r.put("_SCHEMA_ID", f.schemaId)
    r.put("_LEVEL", f.level)
    r.put("_EXTRA_FILES", f.extraFiles.asJava)
    r.put("_CREATION_TIME", f.creationTimeMillis.map(Long.box).orNull)
    r.put("_DELETE_ROW_COUNT", f.deleteRowCount.map(Long.box).orNull)
    r.put("_EMBEDDED_FILE_INDEX", f.embeddedIndex.map(ByteBuffer.wrap).orNull)
    r.put("_FILE_SOURCE", f.fileSource.map(Int.box).orNull)
    r.put("_VALUE_STATS_COLS", f.valueStatsCols.map(_.asJava).orNull)
    r.put("_EXTERNAL_PATH", f.externalPath.orNull)
    r.put("_FIRST_ROW_ID", f.firstRowId.map(Long.box).orNull)
    r.put("_WRITE_COLS", f.writeCols.map(_.asJava).orNull)
    r
  }

  private def statsRecord(schema: Schema, s: SimpleStats): GenericRecord = {
    val r = new GenericData.Record(schema)
    r.put("_MIN_VALUES", ByteBuffer.wrap(s.minValues))
    r.put("_MAX_VALUES", ByteBuffer.wrap(s.maxValues))
    r.put("_NULL_COUNTS", s.nullCounts.map(_.map(_.map(Long.box).orNull).asJava).orNull)
    r
  }

  private def fileMetaRecord(m: ManifestFileMeta): GenericRecord = {
    val r = new GenericData.Record(FileMetaSchema)
    r.put("_VERSION", FileMetaVersion)
    r.put("_FILE_NAME", m.fileName)
    r.put("_FILE_SIZE", m.fileSize)
    r.put("_NUM_ADDED_FILES", m.numAddedFiles)
    r.put("_NUM_DELETED_FILES", m.numDeletedFiles)
    r.put("_PARTITION_STATS", statsRecord(FileMetaSchema.getField("_PARTITION_STATS").schema(), m.partitionStats))
    r.put("_SCHEMA_ID", m.schemaId)
    r.put("_MIN_BUCKET", m.minBucket.map(Int.box).orNull)
    r.put("_MAX_BUCKET", m.maxBucket.map(Int.box).orNull)
    r.put("_MIN_LEVEL", m.minLevel.map(Int.box).orNull)
    r.put("_MAX_LEVEL", m.maxLevel.map(Int.box).orNull)
    r.put("_MIN_ROW_ID", m.minRowId.map(Long.box).orNull)
    r.put("_MAX_ROW_ID", m.maxRowId.map(Long.box).orNull)
    r
  }

  // ---- reading ----

  def readEntries(bytes: Array[Byte]): Seq[ManifestEntry] = readRecords(bytes).map { r =>
    checkVersion(r, EntryVersion)
    ManifestEntry(int(r, "_KIND"), bytesOf(r, "_PARTITION"), int(r, "_BUCKET"), int(r, "_TOTAL_BUCKETS"),
      readFile(get(r, "_FILE").asInstanceOf[GenericRecord]))
  }

  def readFileMetas(bytes: Array[Byte]): Seq[ManifestFileMeta] = readRecords(bytes).map { r =>
    checkVersion(r, FileMetaVersion)
    ManifestFileMeta(
      fileName = get(r, "_FILE_NAME").toString,
      fileSize = long(r, "_FILE_SIZE"),
      numAddedFiles = long(r, "_NUM_ADDED_FILES"),
      numDeletedFiles = long(r, "_NUM_DELETED_FILES"),
      partitionStats = readStats(get(r, "_PARTITION_STATS").asInstanceOf[GenericRecord]),
      schemaId = long(r, "_SCHEMA_ID"),
      minBucket = optInt(r, "_MIN_BUCKET"),
      maxBucket = optInt(r, "_MAX_BUCKET"),
      minLevel = optInt(r, "_MIN_LEVEL"),
      maxLevel = optInt(r, "_MAX_LEVEL"),
      minRowId = optLong(r, "_MIN_ROW_ID"),
      maxRowId = optLong(r, "_MAX_ROW_ID"))
  }

  private[format] def readRecords(bytes: Array[Byte]): Seq[GenericRecord] = {
    // A GenericData of its own: Avro's shared one caches a reader per schema object for good (its weak keys are
    // held by their values), and every file parses its schema anew, so a long-lived driver would keep them all.
    // Over the platform class loader: a GenericData looks for logical-type conversions among the services of
    // its loader, and the application's is every jar of the classpath (0.17 ms a manifest, 8% of a small
    // commit's CPU in the metadata_scaling bench); generic records need no class but Avro's own.
    val stream = new DataFileStream[GenericRecord](new ByteArrayInputStream(bytes),
      new GenericDatumReader[GenericRecord](null, null, new GenericData(ClassLoader.getPlatformClassLoader)))
    try stream.iterator().asScala.toVector
    finally stream.close()
  }

  private[format] def checkVersion(r: GenericRecord, expected: Int): Unit = {
    val v = Option(get(r, "_VERSION")).map(_.asInstanceOf[Int])
    if (v.exists(_ != expected)) {
      throw new IllegalArgumentException(s"manifest row version ${v.get} is not supported (expected $expected)")
    }
  }

  private def readFile(r: GenericRecord): DataFileMeta = DataFileMeta(
    fileName = get(r, "_FILE_NAME").toString,
    fileSize = long(r, "_FILE_SIZE"),
    rowCount = long(r, "_ROW_COUNT"),
    minKey = bytesOf(r, "_MIN_KEY"),
    maxKey = bytesOf(r, "_MAX_KEY"),
    keyStats = readStats(get(r, "_KEY_STATS").asInstanceOf[GenericRecord]),
    valueStats = readStats(get(r, "_VALUE_STATS").asInstanceOf[GenericRecord]),
    minSequenceNumber = long(r, "_MIN_SEQUENCE_NUMBER"),
    maxSequenceNumber = long(r, "_MAX_SEQUENCE_NUMBER"),
    schemaId = long(r, "_SCHEMA_ID"),
    level = int(r, "_LEVEL"),
    extraFiles = strings(r, "_EXTRA_FILES").getOrElse(Nil),
    creationTimeMillis = optLong(r, "_CREATION_TIME"),
    deleteRowCount = optLong(r, "_DELETE_ROW_COUNT"),
    embeddedIndex = Option(get(r, "_EMBEDDED_FILE_INDEX")).map(b => toArray(b.asInstanceOf[ByteBuffer])),
    fileSource = optInt(r, "_FILE_SOURCE"),
    valueStatsCols = strings(r, "_VALUE_STATS_COLS"),
    externalPath = Option(get(r, "_EXTERNAL_PATH")).map(_.toString),
    firstRowId = optLong(r, "_FIRST_ROW_ID"),
    writeCols = strings(r, "_WRITE_COLS"))

  private def readStats(r: GenericRecord): SimpleStats = SimpleStats(
    bytesOf(r, "_MIN_VALUES"), bytesOf(r, "_MAX_VALUES"),
    Option(get(r, "_NULL_COUNTS")).map(_.asInstanceOf[java.util.List[AnyRef]].asScala.toSeq.map(
      v => Option(v).map(_.asInstanceOf[Long]))))

  /** A field by name, or null when the writer's schema does not have it. */
  private[format] def get(r: GenericRecord, name: String): AnyRef =
    if (r.getSchema.getField(name) == null) null else r.get(name)

  private[format] def require(r: GenericRecord, name: String): AnyRef =
    Option(get(r, name)).getOrElse(throw new IllegalArgumentException(s"manifest field $name is missing"))

  private[format] def int(r: GenericRecord, name: String): Int = require(r, name).asInstanceOf[Int]
  private[format] def long(r: GenericRecord, name: String): Long = require(r, name).asInstanceOf[Long]
  private def optInt(r: GenericRecord, name: String): Option[Int] = Option(get(r, name)).map(_.asInstanceOf[Int])
  private def optLong(r: GenericRecord, name: String): Option[Long] = Option(get(r, name)).map(_.asInstanceOf[Long])
  private[format] def bytesOf(r: GenericRecord, name: String): Array[Byte] = toArray(require(r, name).asInstanceOf[ByteBuffer])
  private def strings(r: GenericRecord, name: String): Option[Seq[String]] =
    Option(get(r, name)).map(_.asInstanceOf[java.util.List[AnyRef]].asScala.map(_.toString).toSeq)

  private def toArray(b: ByteBuffer): Array[Byte] = {
    val dup = b.duplicate()
    val out = new Array[Byte](dup.remaining())
    dup.get(out)
    out
  }
}
