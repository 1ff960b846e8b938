package paimonspark.format.metadata

import java.io.{ByteArrayOutputStream, DataInputStream, DataOutputStream}
import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecord}

/** Where a data file's deletion vector is in a `DELETION_VECTORS` index file; cardinality where known. */
final case class DeletionVectorRange(dataFile: String, offset: Int, length: Int, cardinality: Option[Long])

/**
 * One row of an index manifest: an index file of one (partition, bucket). Only `HASH` files (the
 * keys of a dynamic bucket) are written here; other index types read from other writers are kept,
 * with the ranges of a `DELETION_VECTORS` file's vectors and a file's external path.
 */
final case class IndexFileEntry(kind: Int, partition: Array[Byte], bucket: Int, indexType: String, fileName: String,
    fileSize: Long, rowCount: Long, deletionVectors: Seq[DeletionVectorRange] = Nil, externalPath: Option[String] = None) {
  def partitionKey: ByteBuffer = ByteBuffer.wrap(partition)
}

/**
 * The index manifest (`manifest/index-manifest-*`), an Avro file listing every live index file in
 * full (ADD rows only; each commit that changes an index writes a new one), with Paimon 1.4's fields.
 */
object IndexManifestAvro {
  import ManifestAvro.{field, optional, record}

  val Version = 1
  val HashIndex = "HASH"
  val DeletionVectorsIndex = "DELETION_VECTORS"

  val RowSchema: Schema = new Schema.Parser().parse(record("record",
    field("_VERSION", "\"int\""), field("_KIND", "\"int\""), field("_PARTITION", "\"bytes\""),
    field("_BUCKET", "\"int\""), field("_INDEX_TYPE", "\"string\""), field("_FILE_NAME", "\"string\""),
    field("_FILE_SIZE", "\"long\""), field("_ROW_COUNT", "\"long\""),
    optional("_DELETIONS_VECTORS_RANGES", """{"type":"array","items":["null",""" + record(
      "record__DELETIONS_VECTORS_RANGES", field("f0", "\"string\""), field("f1", "\"int\""), field("f2", "\"int\""),
      optional("_CARDINALITY", "\"long\"")) + "]}"),
    optional("_EXTERNAL_PATH", "\"string\""),
    optional("_GLOBAL_INDEX", record("record__GLOBAL_INDEX", field("_ROW_RANGE_START", "\"long\""),
      field("_ROW_RANGE_END", "\"long\""), field("_INDEX_FIELD_ID", "\"int\""),
      field("_EXTRA_FIELD_IDS", """{"type":"array","items":"int"}"""), optional("_INDEX_META", "\"bytes\"")))))

  def write(entries: Seq[IndexFileEntry], compression: String): Array[Byte] =
    ManifestAvro.writeRecords(RowSchema, entries.map { e =>
      val r = new GenericData.Record(RowSchema)
      r.put("_VERSION", Version)
      r.put("_KIND", e.kind)
      r.put("_PARTITION", ByteBuffer.wrap(e.partition))
      r.put("_BUCKET", e.bucket)
      r.put("_INDEX_TYPE", e.indexType)
      r.put("_FILE_NAME", e.fileName)
      r.put("_FILE_SIZE", e.fileSize)
      r.put("_ROW_COUNT", e.rowCount)
      // A deletion-vectors file always lists its ranges, none included (Paimon's readers require the list:
      // its writers leave an empty file where a bucket's last vector went); other index types have none.
      if (e.indexType == DeletionVectorsIndex) r.put("_DELETIONS_VECTORS_RANGES", e.deletionVectors.map { v =>
        val range = new GenericData.Record(RangeSchema)
        range.put("f0", v.dataFile)
        range.put("f1", v.offset)
        range.put("f2", v.length)
        range.put("_CARDINALITY", v.cardinality.map(Long.box).orNull)
        range
      }.asJava)
      e.externalPath.foreach(r.put("_EXTERNAL_PATH", _))
      r: GenericRecord
    }, compression)

  /** The index files of a manifest, HASH or not; a row of another format version is refused. */
  def read(bytes: Array[Byte]): Seq[IndexFileEntry] = ManifestAvro.readRecords(bytes).map { r =>
    ManifestAvro.checkVersion(r, Version)
    IndexFileEntry(ManifestAvro.int(r, "_KIND"), ManifestAvro.bytesOf(r, "_PARTITION"), ManifestAvro.int(r, "_BUCKET"),
      ManifestAvro.get(r, "_INDEX_TYPE").toString, ManifestAvro.get(r, "_FILE_NAME").toString,
      ManifestAvro.long(r, "_FILE_SIZE"), ManifestAvro.long(r, "_ROW_COUNT"), ranges(r),
      Option(ManifestAvro.get(r, "_EXTERNAL_PATH")).map(_.toString))
  }

  private def ranges(r: GenericRecord): Seq[DeletionVectorRange] =
    Option(ManifestAvro.get(r, "_DELETIONS_VECTORS_RANGES")).toSeq.flatMap(_.asInstanceOf[java.util.List[GenericRecord]]
      .asScala.map(v => DeletionVectorRange(ManifestAvro.get(v, "f0").toString, ManifestAvro.int(v, "f1"),
        ManifestAvro.int(v, "f2"), Option(ManifestAvro.get(v, "_CARDINALITY")).map(_.asInstanceOf[Long]))))

  private lazy val RangeSchema: Schema =
    RowSchema.getField("_DELETIONS_VECTORS_RANGES").schema().getTypes.get(1).getElementType.getTypes.get(1)
}

/** A HASH index file: the 32-bit hashes of a bucket's keys, 4 bytes big-endian each, nothing else. */
object HashIndexFile {
  def write(hashes: Iterable[Int]): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val data = new DataOutputStream(out)
    hashes.foreach(data.writeInt)
    data.close()
    out.toByteArray
  }

  def read(bytes: Array[Byte]): Array[Int] = {
    val in = new DataInputStream(new java.io.ByteArrayInputStream(bytes))
    Array.fill(bytes.length / 4)(in.readInt())
  }
}
