package paimonspark.format.metadata

import java.io.ByteArrayOutputStream

import org.apache.avro.Schema
import org.apache.avro.file.DataFileWriter
import org.apache.avro.generic.{GenericData, GenericDatumWriter, GenericRecord}
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.row.BinaryRow

class ManifestAvroSuite extends AnyFunSuite {
  private val stats = SimpleStats(BinaryRow.EmptySerialized, BinaryRow.EmptySerialized, Some(Seq(Some(1L), None)))
  private val file = DataFileMeta("data-x-0.parquet", 1234L, 10L, BinaryRow.EmptySerialized, BinaryRow.EmptySerialized,
    SimpleStats.Empty, stats, 0L, 9L, 0L, 0, Nil, Some(1700000000000L), Some(0L), None, Some(FileSource.Append), None,
    None, None, None)
  private val partition = Array[Byte](0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0)

  private def sameEntry(a: ManifestEntry, b: ManifestEntry): Unit = {
    assert(a.kind == b.kind && a.bucket == b.bucket && a.totalBuckets == b.totalBuckets)
    assert(a.identifier == b.identifier)
    assert(a.file.copy(minKey = null, maxKey = null, keyStats = null, valueStats = null) ==
      b.file.copy(minKey = null, maxKey = null, keyStats = null, valueStats = null))
    assert(a.file.valueStats.nullCounts == b.file.valueStats.nullCounts)
  }

  test("manifest entries round-trip") {
    val entries = Seq(ManifestEntry(FileKind.Add, partition, 0, -1, file),
      ManifestEntry(FileKind.Delete, partition, 0, -1, file.copy(fileName = "data-y-1.parquet")))
    val back = ManifestAvro.readEntries(ManifestAvro.writeEntries(entries, "zstd"))
    assert(back.size == 2)
    entries.zip(back).foreach { case (a, b) => sameEntry(a, b) }
  }

  test("reading manifests leaves nothing in Avro's shared reader cache, which keeps what it holds for good") {
    // Found by DifferentialSuite's long runs: their driver filled its heap with the readers of every manifest read.
    val cache = {
      val field = classOf[org.apache.avro.io.FastReaderBuilder].getDeclaredField("readerCache")
      field.setAccessible(true)
      field.get(GenericData.get().getFastReaderBuilder).asInstanceOf[java.util.Map[_, _]]
    }
    val bytes = ManifestAvro.writeEntries(Seq(ManifestEntry(FileKind.Add, partition, 0, -1, file)), "zstd")
    val before = cache.size
    (1 to 50).foreach(_ => ManifestAvro.readEntries(bytes))
    assert(cache.size == before)
  }

  test("the writer schema carries Paimon 1.4.2's fields in order with _VERSION first") {
    val names = ManifestAvro.EntrySchema.getField("_FILE").schema().getFields
    assert(names.get(0).name() == "_FILE_NAME" && names.get(names.size - 1).name() == "_WRITE_COLS")
    assert(ManifestAvro.EntrySchema.getFields.get(0).name() == "_VERSION")
    assert(ManifestAvro.EntrySchema.getFullName == "org.apache.paimon.avro.generated.record")
  }

  test("manifest list rows round-trip") {
    val meta = ManifestFileMeta("manifest-a-0", 999L, 3L, 1L, stats, 0L, Some(0), Some(0), Some(0), Some(0), None, None)
    val back = ManifestAvro.readFileMetas(ManifestAvro.writeFileMetas(Seq(meta), "zstd")).head
    assert(back.copy(partitionStats = null) == meta.copy(partitionStats = null))
  }

  test("an older writer's manifest without the newer nullable fields reads them as absent") {
    val schema = new Schema.Parser().parse(
      """{"type":"record","name":"ManifestEntry","fields":[{"name":"_VERSION","type":"int"},
        |{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},
        |{"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":{"type":"record","name":"DataFileMeta","fields":[
        |{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},
        |{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},
        |{"name":"_KEY_STATS","type":{"type":"record","name":"S1","fields":[{"name":"_MIN_VALUES","type":"bytes"},
        |{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}]}]}},
        |{"name":"_VALUE_STATS","type":"S1"},{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},
        |{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},
        |{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},
        |{"name":"_SOMETHING_NEW","type":["null","string"],"default":null}]}}]}""".stripMargin)
    val fileSchema = schema.getField("_FILE").schema()
    val statsSchema = fileSchema.getField("_KEY_STATS").schema()
    def statsRecord = {
      val s = new GenericData.Record(statsSchema)
      s.put("_MIN_VALUES", java.nio.ByteBuffer.wrap(BinaryRow.EmptySerialized))
      s.put("_MAX_VALUES", java.nio.ByteBuffer.wrap(BinaryRow.EmptySerialized))
      s
    }
    val f = new GenericData.Record(fileSchema)
    Seq("_FILE_NAME" -> "data-old.parquet", "_FILE_SIZE" -> 5L, "_ROW_COUNT" -> 1L, "_MIN_SEQUENCE_NUMBER" -> 0L,
      "_MAX_SEQUENCE_NUMBER" -> 0L, "_SCHEMA_ID" -> 0L, "_LEVEL" -> 0).foreach { case (k, v) => f.put(k, v) }
    f.put("_MIN_KEY", java.nio.ByteBuffer.wrap(BinaryRow.EmptySerialized))
    f.put("_MAX_KEY", java.nio.ByteBuffer.wrap(BinaryRow.EmptySerialized))
    f.put("_KEY_STATS", statsRecord)
    f.put("_VALUE_STATS", statsRecord)
    f.put("_EXTRA_FILES", new java.util.ArrayList[String]())
    val r = new GenericData.Record(schema)
    r.put("_VERSION", 2); r.put("_KIND", 0); r.put("_PARTITION", java.nio.ByteBuffer.wrap(BinaryRow.EmptySerialized))
    r.put("_BUCKET", 0); r.put("_TOTAL_BUCKETS", -1); r.put("_FILE", f)
    val out = new ByteArrayOutputStream()
    val w = new DataFileWriter[GenericRecord](new GenericDatumWriter[GenericRecord](schema))
    w.create(schema, out); w.append(r); w.close()
    val e = ManifestAvro.readEntries(out.toByteArray).head
    assert(e.file.fileName == "data-old.parquet")
    assert(e.file.deleteRowCount.isEmpty && e.file.fileSource.isEmpty && e.file.valueStatsCols.isEmpty)
  }
}
