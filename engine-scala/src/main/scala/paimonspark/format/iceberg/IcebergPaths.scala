package paimonspark.format.iceberg

import java.util.UUID

import org.apache.hadoop.fs.Path

import paimonspark.UnsupportedFeatureException

/**
 * Where a table's Iceberg metadata lives (Paimon's `IcebergPathFactory`): `<table>/metadata` for
 * `table-location`, `<warehouse>/iceberg/<db>/<table>/metadata` for `catalog-location` (the default of
 * `hadoop-catalog`: an Iceberg Hadoop catalog over `<warehouse>/iceberg`). Manifests and manifest lists
 * written by one commit share a fresh uuid.
 */
final class IcebergPaths(val metadataDir: Path) {
  private val uuid = UUID.randomUUID().toString
  private var manifests = 0
  private var lists = 0

  def newManifest(): Path = { manifests += 1; new Path(metadataDir, s"$uuid-m$manifests.avro") }
  def newManifestList(): Path = { lists += 1; new Path(metadataDir, s"snap-$lists-$uuid.avro") }
  def metadataFile(snapshotId: Long): Path = new Path(metadataDir, s"v$snapshotId.metadata.json")
  def versionHint: Path = new Path(metadataDir, "version-hint.text")

  /** The snapshot id a `v<N>.metadata.json` name holds. */
  def versionOf(name: String): Option[Long] =
    Some(name).filter(n => n.startsWith("v") && n.endsWith(".metadata.json"))
      .flatMap(n => n.stripPrefix("v").stripSuffix(".metadata.json").toLongOption)
}

object IcebergPaths {
  /**
   * The paths of table `name` at `location` whose `metadata.iceberg.storage` is `storage` and
   * `metadata.iceberg.storage-location` is `storageLocation`, if set.
   */
  def of(name: String, location: Path, storage: String, storageLocation: Option[String]): IcebergPaths = {
    val where = storageLocation.getOrElse(if (storage == "table-location") "table-location" else "catalog-location")
    if (where == "table-location") new IcebergPaths(new Path(location, "metadata"))
    else {
      val dbDir = location.getParent
      if (dbDir == null || !dbDir.getName.endsWith(".db")) {
        throw new UnsupportedFeatureException(s"table $name: metadata.iceberg.storage '$storage' keeps Iceberg " +
          "metadata in the warehouse's iceberg/ directory, so it can only be used on tables in a warehouse " +
          "(<warehouse>/<db>.db/<table>); use metadata.iceberg.storage-location = table-location", "metadata.iceberg.storage")
      }
      val db = dbDir.getName.stripSuffix(".db")
      new IcebergPaths(new Path(new Path(new Path(dbDir.getParent, "iceberg"), db), s"${location.getName}/metadata"))
    }
  }
}
