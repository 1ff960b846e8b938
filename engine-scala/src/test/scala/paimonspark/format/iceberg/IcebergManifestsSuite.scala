package paimonspark.format.iceberg

import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.format.{DataField, DataTypes}

/**
 * The partition summaries of Iceberg manifests as a commit that removes files reads them: a manifest is read
 * only if its summaries may hold a partition the commit touched, as Paimon's partition predicate decides.
 */
class IcebergManifestsSuite extends AnyFunSuite {
  private val fields = Seq(DataField(1, "dt", DataTypes.string), DataField(2, "hour", DataTypes.int))
  private val manifests = new IcebergManifests(fields, "snappy", legacy = false)

  private def manifestOf(partitions: Seq[Any]*): IcebergManifestMeta = {
    val entries = partitions.map(p => IcebergEntry(IcebergEntry.Added, 1, 1, 1, IcebergDataFile(IcebergDataFile.Data,
      "/t/f.parquet", "parquet", p, 1, 1, Map.empty, Map.empty, Map.empty)))
    val (_, meta) = manifests.manifest(entries, 1, 1)
    // The summaries survive the manifest list's Avro as written.
    manifests.readManifestList(manifests.manifestList(Seq(meta("/t/m.avro")))).head
  }
  private def p(dt: String, hour: Any): Seq[Any] = Seq(Option(dt).map(UTF8String.fromString).orNull, hour)

  test("a manifest may hold the partitions within its bounds on every field, and nulls where it holds some") {
    val meta = manifestOf(p("2026-01-02", 3), p("2026-01-05", 12))
    assert(manifests.mayHold(meta, Seq(p("2026-01-03", 7))) && !manifests.mayHold(meta, Seq(p("2026-01-03", 20))))
    assert(manifests.mayHold(meta, Seq(p("2026-01-05", 3))))
    assert(!manifests.mayHold(meta, Seq(p("2026-01-06", 5), p("2026-01-01", 5))))
    assert(!manifests.mayHold(meta, Seq(p("2026-01-03", 13))))
    assert(!manifests.mayHold(meta, Seq(p(null, 5))))
    val withNulls = manifestOf(p(null, 1), p("2026-01-02", -7))
    assert(manifests.mayHold(withNulls, Seq(p(null, 0))) && !manifests.mayHold(withNulls, Seq(p("2026-01-02", 2))))
    assert(manifests.mayHold(withNulls, Seq(p("2026-01-02", -7))))
  }

  test("every manifest of an unpartitioned table may hold what a commit touched") {
    val unpartitioned = new IcebergManifests(Nil, "snappy", legacy = false)
    val (_, meta) = unpartitioned.manifest(Seq(IcebergEntry(IcebergEntry.Added, 1, 1, 1, IcebergDataFile(
      IcebergDataFile.Data, "/t/f.parquet", "parquet", Nil, 1, 1, Map.empty, Map.empty, Map.empty))), 1, 1)
    assert(unpartitioned.mayHold(meta("/t/m.avro"), Seq(Nil)))
  }
}
