package paimonspark.format.iceberg

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import org.apache.avro.Schema
import org.apache.avro.file.{CodecFactory, DataFileReader, DataFileWriter, SeekableByteArrayInput}
import org.apache.avro.generic.{GenericData, GenericDatumReader, GenericDatumWriter, GenericRecord}
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

import paimonspark.InvalidOptionException
import paimonspark.format.{AtomicType, DataField, TypeRoot}

/**
 * One file as an Iceberg manifest holds it (`data_file`), bounds serialized, partition values Spark's:
 * `content` 0 data, 1 position deletes, which a deletion vector (`puffin`) is, read at its offset and size.
 */
final case class IcebergDataFile(content: Int, path: String, format: String, partition: Seq[Any], recordCount: Long,
    fileSize: Long, nullCounts: Map[Int, Long], lowerBounds: Map[Int, Array[Byte]], upperBounds: Map[Int, Array[Byte]],
    deletionVector: Option[IcebergDataFile.DeletionVector] = None)

object IcebergDataFile {
  val Data = 0
  val PositionDeletes = 1

  /** Where a deletion vector is in its file, and the data file it deletes rows of. */
  final case class DeletionVector(referencedDataFile: String, offset: Long, size: Long)
}

/** A manifest entry: `status` 0 existing, 1 added, 2 deleted, with the snapshot and sequence numbers it came with. */
final case class IcebergEntry(status: Int, snapshotId: Long, sequenceNumber: Long, fileSequenceNumber: Long,
    file: IcebergDataFile) {
  def live: Boolean = status != IcebergEntry.Deleted
}

object IcebergEntry {
  val Existing = 0
  val Added = 1
  val Deleted = 2
}

/** What a partition field holds across a manifest (`field_summary`). */
final case class IcebergPartitionSummary(containsNull: Boolean, lower: Option[Array[Byte]], upper: Option[Array[Byte]])

/** A manifest as a manifest list holds it (`manifest_file`); `content` 0 data, 1 deletes. */
final case class IcebergManifestMeta(path: String, length: Long, content: Int, sequenceNumber: Long,
    minSequenceNumber: Long, addedSnapshotId: Long, addedFiles: Int, existingFiles: Int, deletedFiles: Int,
    addedRows: Long, existingRows: Long, deletedRows: Long, partitions: Seq[IcebergPartitionSummary])

/**
 * Iceberg's manifests and manifest lists in Avro, as Paimon's `IcebergManifestFile` and `IcebergManifestList`
 * write them: Iceberg's field ids on every field, partitions by the table's partition fields (ids from 1000),
 * the table's `manifest-compression` codec; `legacy` names the counts as Iceberg 1.4 did.
 */
final class IcebergManifests(partitionFields: Seq[DataField], compression: String, legacy: Boolean) {
  private val entrySchema = new Schema.Parser().parse(IcebergManifests.entrySchema(partitionFields))
  private val listSchema = new Schema.Parser().parse(IcebergManifests.listSchema(legacy))
  private val dataFileSchema = entrySchema.getField("data_file").schema()
  private val partitionSchema = dataFileSchema.getField("partition").schema()
  private val summarySchema = listSchema.getField("partitions").schema().getTypes.get(1).getElementType
  private val codec = IcebergManifests.codec(compression)

  /** A manifest file's bytes holding `entries`, and its manifest-list row but for its path and length. */
  def manifest(entries: Seq[IcebergEntry], sequenceNumber: Long, snapshotId: Long): (Array[Byte], String => IcebergManifestMeta) = {
    val bytes = write(entrySchema, entries.map(entryRecord))
    def count(status: Int) = entries.count(_.status == status)
    def rows(status: Int) = entries.filter(_.status == status).map(_.file.recordCount).sum
    val summaries = partitionFields.indices.map { i =>
      val values = entries.map(_.file.partition(i))
      val present = values.filter(_ != null)
      val t = partitionFields(i).dataType
      val ordering = IcebergManifests.ordering(t)
      IcebergPartitionSummary(values.exists(_ == null),
        present.reduceOption[Any](ordering.min(_, _)).map(IcebergTypes.bound(t, _)),
        present.reduceOption[Any](ordering.max(_, _)).map(IcebergTypes.bound(t, _)))
    }
    val minSequence = entries.map(_.sequenceNumber).minOption.getOrElse(-1L)
    // A manifest holds data files or delete files, never both.
    val content = if (entries.exists(_.file.content != IcebergDataFile.Data)) 1 else 0
    (bytes, path => IcebergManifestMeta(path, bytes.length, content, sequenceNumber, minSequence, snapshotId,
      count(IcebergEntry.Added), count(IcebergEntry.Existing), count(IcebergEntry.Deleted), rows(IcebergEntry.Added),
      rows(IcebergEntry.Existing), rows(IcebergEntry.Deleted), summaries))
  }

  def readManifest(bytes: Array[Byte]): Seq[IcebergEntry] = read(bytes).map { r =>
    val f = r.get("data_file").asInstanceOf[GenericRecord]
    val partition = f.get("partition").asInstanceOf[GenericRecord]
    val vector = Option(f.get("referenced_data_file")).map(ref => IcebergDataFile.DeletionVector(ref.toString,
      long(f.get("content_offset")), long(f.get("content_size_in_bytes"))))
    IcebergEntry(r.get("status").asInstanceOf[Int], long(r.get("snapshot_id")), long(r.get("sequence_number")),
      long(r.get("file_sequence_number")), IcebergDataFile(f.get("content").asInstanceOf[Int], f.get("file_path").toString,
        f.get("file_format").toString,
        partitionFields.indices.map(i => IcebergManifests.fromAvro(partitionFields(i), partition.get(i))),
        long(f.get("record_count")), long(f.get("file_size_in_bytes")),
        pairs(f.get("null_value_counts")).map { case (k, v) => k -> long(v) }.toMap,
        pairs(f.get("lower_bounds")).map { case (k, v) => k -> bytesOf(v) }.toMap,
        pairs(f.get("upper_bounds")).map { case (k, v) => k -> bytesOf(v) }.toMap, vector))
  }

  /**
   * Whether a manifest may hold a file of one of `partitions` (values in Spark's representation, in partition
   * order) by its partition summaries, as Paimon's partition predicate tests them; every manifest of an
   * unpartitioned table may.
   */
  def mayHold(meta: IcebergManifestMeta, partitions: Iterable[Seq[Any]]): Boolean =
    partitionFields.isEmpty || meta.partitions.size != partitionFields.size || partitions.exists { values =>
      partitionFields.indices.forall { i =>
        val summary = meta.partitions(i)
        val t = partitionFields(i).dataType
        val ordering = IcebergManifests.ordering(t)
        values(i) match {
          case null => summary.containsNull
          case v => (summary.lower, summary.upper) match {
            case (Some(lo), Some(hi)) =>
              !ordering.lt(v, IcebergTypes.fromBound(t, lo)) && !ordering.gt(v, IcebergTypes.fromBound(t, hi))
            case _ => false
          }
        }
      }
    }

  def manifestList(metas: Seq[IcebergManifestMeta]): Array[Byte] = write(listSchema, metas.map(listRecord))

  def readManifestList(bytes: Array[Byte]): Seq[IcebergManifestMeta] = read(bytes).map { r =>
    def int(name: String) = r.get(name).asInstanceOf[Int]
    val counts = if (legacy) Seq("added_data_files_count", "existing_data_files_count", "deleted_data_files_count")
      else Seq("added_files_count", "existing_files_count", "deleted_files_count")
    IcebergManifestMeta(r.get("manifest_path").toString, long(r.get("manifest_length")), int("content"),
      long(r.get("sequence_number")), long(r.get("min_sequence_number")), long(r.get("added_snapshot_id")),
      int(counts(0)), int(counts(1)), int(counts(2)), long(r.get("added_rows_count")),
      long(r.get("existing_rows_count")), long(r.get("deleted_rows_count")),
      Option(r.get("partitions")).map(_.asInstanceOf[java.util.List[GenericRecord]].asScala.toSeq).getOrElse(Nil).map { s =>
        IcebergPartitionSummary(s.get("contains_null").asInstanceOf[Boolean], Option(s.get("lower_bound")).map(bytesOf),
          Option(s.get("upper_bound")).map(bytesOf))
      })
  }

  private def entryRecord(e: IcebergEntry): GenericRecord = {
    val f = new GenericData.Record(dataFileSchema)
    f.put("content", e.file.content)
    f.put("file_path", e.file.path)
    f.put("file_format", e.file.format)
    val partition = new GenericData.Record(partitionSchema)
    partitionFields.indices.foreach(i => partition.put(i, IcebergManifests.toAvro(partitionFields(i), e.file.partition(i))))
    f.put("partition", partition)
    f.put("record_count", e.file.recordCount)
    f.put("file_size_in_bytes", e.file.fileSize)
    e.file.deletionVector match {
      case Some(v) =>
        // A deletion vector has no column statistics: Paimon leaves them null, as Iceberg's own writer does.
        f.put("referenced_data_file", v.referencedDataFile)
        f.put("content_offset", v.offset)
        f.put("content_size_in_bytes", v.size)
      case None =>
        f.put("null_value_counts", mapRecords(f.getSchema.getField("null_value_counts").schema(), e.file.nullCounts))
        f.put("lower_bounds", mapRecords(f.getSchema.getField("lower_bounds").schema(),
          e.file.lowerBounds.map { case (k, v) => k -> ByteBuffer.wrap(v) }))
        f.put("upper_bounds", mapRecords(f.getSchema.getField("upper_bounds").schema(),
          e.file.upperBounds.map { case (k, v) => k -> ByteBuffer.wrap(v) }))
    }
    val r = new GenericData.Record(entrySchema)
    r.put("status", e.status)
    r.put("snapshot_id", e.snapshotId)
    r.put("sequence_number", e.sequenceNumber)
    r.put("file_sequence_number", e.fileSequenceNumber)
    r.put("data_file", f)
    r
  }

  /** Iceberg's maps with int keys: arrays of key-value records, in key order. */
  private def mapRecords(union: Schema, values: Map[Int, Any]): java.util.List[GenericRecord] = {
    val array = union.getTypes.get(1)
    values.toSeq.sortBy(_._1).map { case (k, v) =>
      val kv = new GenericData.Record(array.getElementType)
      kv.put("key", k)
      kv.put("value", v)
      kv: GenericRecord
    }.asJava
  }

  private def listRecord(m: IcebergManifestMeta): GenericRecord = {
    val r = new GenericData.Record(listSchema)
    r.put("manifest_path", m.path)
    r.put("manifest_length", m.length)
    r.put("partition_spec_id", 0)
    r.put("content", m.content)
    r.put("sequence_number", m.sequenceNumber)
    r.put("min_sequence_number", m.minSequenceNumber)
    r.put("added_snapshot_id", m.addedSnapshotId)
    val prefix = if (legacy) "_data_files_count" else "_files_count"
    r.put("added" + prefix, m.addedFiles)
    r.put("existing" + prefix, m.existingFiles)
    r.put("deleted" + prefix, m.deletedFiles)
    r.put("added_rows_count", m.addedRows)
    r.put("existing_rows_count", m.existingRows)
    r.put("deleted_rows_count", m.deletedRows)
    r.put("partitions", m.partitions.map { s =>
      val summary = new GenericData.Record(summarySchema)
      summary.put("contains_null", s.containsNull)
      summary.put("contains_nan", false)
      summary.put("lower_bound", s.lower.map(ByteBuffer.wrap).orNull)
      summary.put("upper_bound", s.upper.map(ByteBuffer.wrap).orNull)
      summary: GenericRecord
    }.asJava)
    r
  }

  private def write(schema: Schema, records: Seq[GenericRecord]): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val writer = new DataFileWriter[GenericRecord](new GenericDatumWriter[GenericRecord](schema)).setCodec(codec)
    writer.create(schema, out)
    records.foreach(writer.append)
    writer.close()
    out.toByteArray
  }

  private def read(bytes: Array[Byte]): Seq[GenericRecord] = {
    val reader = new DataFileReader[GenericRecord](new SeekableByteArrayInput(bytes), new GenericDatumReader[GenericRecord]())
    try reader.iterator().asScala.toList finally reader.close()
  }

  private def long(v: Any): Long = v.asInstanceOf[Long]
  private def bytesOf(v: Any): Array[Byte] = {
    val b = v.asInstanceOf[ByteBuffer].duplicate()
    val out = new Array[Byte](b.remaining())
    b.get(out)
    out
  }
  private def pairs(v: Any): Seq[(Int, Any)] = Option(v).map(_.asInstanceOf[java.util.List[GenericRecord]].asScala.toSeq)
    .getOrElse(Nil).map(kv => kv.get("key").asInstanceOf[Int] -> kv.get("value"))
}

object IcebergManifests {
  /** The codecs `metadata.iceberg.manifest-compression` takes: Avro's, by Paimon's names. */
  def codec(name: String): CodecFactory = name.trim.toLowerCase match {
    case "snappy" => CodecFactory.snappyCodec()
    case "zstd" => CodecFactory.zstandardCodec(CodecFactory.DEFAULT_ZSTANDARD_LEVEL)
    case "deflate" | "gzip" => CodecFactory.deflateCodec(CodecFactory.DEFAULT_DEFLATE_LEVEL)
    case "null" | "none" | "uncompressed" => CodecFactory.nullCodec()
    case other => throw new InvalidOptionException("metadata.iceberg.manifest-compression",
      s"metadata.iceberg.manifest-compression '$other' is not one of snappy, zstd, deflate, null")
  }

  private def field(name: String, avroType: String, id: Int, optional: Boolean = false): String =
    if (optional) s"""{"name":"$name","type":["null",$avroType],"default":null,"field-id":$id}"""
    else s"""{"name":"$name","type":$avroType,"field-id":$id}"""

  private def intMap(name: String, id: Int, keyId: Int, valueId: Int, value: String): String = field(name,
    s"""{"type":"array","items":{"type":"record","name":"k${keyId}_v$valueId","fields":[${field("key", "\"int\"", keyId)},""" +
      s"""${field("value", value, valueId)}]},"logicalType":"map"}""", id, optional = true)

  /** The Avro type a partition column's values take in manifests. */
  private def partitionType(f: DataField): String = f.dataType match {
    case a: AtomicType => a.root match {
      case TypeRoot.Boolean => "\"boolean\""
      case TypeRoot.TinyInt | TypeRoot.SmallInt | TypeRoot.Int => "\"int\""
      case TypeRoot.BigInt => "\"long\""
      case TypeRoot.Float => "\"float\""
      case TypeRoot.Double => "\"double\""
      case TypeRoot.Date => """{"type":"int","logicalType":"date"}"""
      case TypeRoot.Char | TypeRoot.VarChar => "\"string\""
      case TypeRoot.Binary | TypeRoot.VarBinary => "\"bytes\""
      case TypeRoot.Decimal =>
        s"""{"type":"bytes","logicalType":"decimal","precision":${a.precision},"scale":${a.scale}}"""
      case TypeRoot.Timestamp | TypeRoot.TimestampLtz => """{"type":"long","logicalType":"timestamp-micros"}"""
      case other => throw new UnsupportedOperationException(s"partition column ${f.name}: ${other.keyword} has no Iceberg partition type")
    }
    case other => throw new UnsupportedOperationException(s"partition column ${f.name}: ${other.sql} cannot partition")
  }

  def entrySchema(partitionFields: Seq[DataField]): String = {
    val partition = partitionFields.zipWithIndex.map { case (f, i) =>
      field(f.name, partitionType(f), 1000 + i, optional = true)
    }.mkString(",")
    val dataFile = Seq(
      field("content", "\"int\"", 134), field("file_path", "\"string\"", 100), field("file_format", "\"string\"", 101),
      field("partition", s"""{"type":"record","name":"r102","fields":[$partition]}""", 102),
      field("record_count", "\"long\"", 103), field("file_size_in_bytes", "\"long\"", 104),
      intMap("null_value_counts", 110, 121, 122, "\"long\""), intMap("lower_bounds", 125, 126, 127, "\"bytes\""),
      intMap("upper_bounds", 128, 129, 130, "\"bytes\""), field("referenced_data_file", "\"string\"", 143, optional = true),
      field("content_offset", "\"long\"", 144, optional = true),
      field("content_size_in_bytes", "\"long\"", 145, optional = true)).mkString(",")
    s"""{"type":"record","name":"manifest_entry","fields":[${field("status", "\"int\"", 0)},""" +
      s"""${field("snapshot_id", "\"long\"", 1, optional = true)},${field("sequence_number", "\"long\"", 3, optional = true)},""" +
      s"""${field("file_sequence_number", "\"long\"", 4, optional = true)},""" +
      s"""${field("data_file", s"""{"type":"record","name":"r2","fields":[$dataFile]}""", 2)}]}"""
  }

  def listSchema(legacy: Boolean): String = {
    val counts = if (legacy) "_data_files_count" else "_files_count"
    val summary = Seq(field("contains_null", "\"boolean\"", 509), field("contains_nan", "\"boolean\"", 518, optional = true),
      field("lower_bound", "\"bytes\"", 510, optional = true), field("upper_bound", "\"bytes\"", 511, optional = true))
      .mkString(",")
    val fields = Seq(field("manifest_path", "\"string\"", 500), field("manifest_length", "\"long\"", 501),
      field("partition_spec_id", "\"int\"", 502), field("content", "\"int\"", 517),
      field("sequence_number", "\"long\"", 515), field("min_sequence_number", "\"long\"", 516),
      field("added_snapshot_id", "\"long\"", 503, optional = true), field("added" + counts, "\"int\"", 504),
      field("existing" + counts, "\"int\"", 505), field("deleted" + counts, "\"int\"", 506),
      field("added_rows_count", "\"long\"", 512), field("existing_rows_count", "\"long\"", 513),
      field("deleted_rows_count", "\"long\"", 514),
      field("partitions", s"""{"type":"array","items":{"type":"record","name":"r508","fields":[$summary]},"element-id":508}""",
        507, optional = true)).mkString(",")
    s"""{"type":"record","name":"manifest_file","fields":[$fields]}"""
  }

  private def toAvro(f: DataField, v: Any): Any = v match {
    case null => null
    case s: UTF8String => s.toString
    case d: Decimal => ByteBuffer.wrap(d.toJavaBigDecimal.unscaledValue().toByteArray)
    case b: Array[Byte] => ByteBuffer.wrap(b)
    case b: Byte => b.toInt
    case s: Short => s.toInt
    case other => other
  }

  private def fromAvro(f: DataField, v: Any): Any = (v, f.dataType) match {
    case (null, _) => null
    case (u: org.apache.avro.util.Utf8, _) => UTF8String.fromString(u.toString)
    case (s: String, _) => UTF8String.fromString(s)
    case (b: ByteBuffer, a: AtomicType) if a.root == TypeRoot.Decimal =>
      val bytes = new Array[Byte](b.remaining()); b.duplicate().get(bytes)
      Decimal(new java.math.BigDecimal(new java.math.BigInteger(bytes), a.scale), a.precision, a.scale)
    case (b: ByteBuffer, _) => val bytes = new Array[Byte](b.remaining()); b.duplicate().get(bytes); bytes
    case (i: Int, a: AtomicType) if a.root == TypeRoot.TinyInt => i.toByte
    case (i: Int, a: AtomicType) if a.root == TypeRoot.SmallInt => i.toShort
    case (other, _) => other
  }

  /** How partition values of a type compare, for a manifest's partition bounds. */
  private def ordering(t: paimonspark.format.DataType): Ordering[Any] = {
    val root = t.asInstanceOf[AtomicType].root
    Ordering.fromLessThan[Any] { (a, b) =>
      (a, b) match {
        case (x: UTF8String, y: UTF8String) => x.compareTo(y) < 0
        case (x: Array[Byte], y: Array[Byte]) => java.util.Arrays.compareUnsigned(x, y) < 0
        case (x: Decimal, y: Decimal) => x.compare(y) < 0
        case (x: Boolean, y: Boolean) => !x && y
        case (x: java.lang.Number, y: java.lang.Number) if root == TypeRoot.Float || root == TypeRoot.Double =>
          x.doubleValue() < y.doubleValue()
        case (x: java.lang.Number, y: java.lang.Number) => x.longValue() < y.longValue()
        case _ => false
      }
    }
  }
}
