package paimonspark.table

import paimonspark.UnsupportedFeatureException
import paimonspark.format._
import paimonspark.format.metadata._
import paimonspark.format.files.UnwritableColumns
import paimonspark.table.options.{Access, PaimonOptions}

/**
 * The features of Paimon a table may use that this engine does not implement, looked for wherever
 * they show, whoever wrote the table: its options and column types (schema), its index files
 * (snapshot) and its data files' metadata (manifests). A table using one is refused with an
 * [[UnsupportedFeatureException]] naming the table and the feature when it is opened for an access
 * the feature would change, before anything is read or written, never read as if it were not there.
 */
object TableFeatures {
  /** Refuses a table with a column of a type this engine has no values for (VARIANT, BLOB, VECTOR, ...). */
  def requireColumnTypes(table: FileStoreTable): Unit = columnType(table.schema).foreach { t =>
    throw refusal(table, t, s"a column of type $t", "values of this type are not read or written yet")
  }

  /** Refuses keeping Iceberg metadata for a table it is not built for yet, or whose columns Iceberg has no type for. */
  private def requireIcebergWritable(table: FileStoreTable): Unit = {
    val key = TableOptions.IcebergStorageKey
    val options = table.options
    // Paimon would list such a table's files without their vectors, and Iceberg readers would see deleted rows.
    if (options.deletionVectors && !(options.deletionVectorsBitmap64 && options.icebergFormatVersion == 3)) {
      throw refusal(table, key, "Iceberg metadata of a table with deletion vectors", "Iceberg readers get its " +
        "deletion vectors only with 'metadata.iceberg.format-version' = '3' and 'deletion-vectors.bitmap64' = 'true'")
    }
    table.schema.fields.foreach(f => paimonspark.format.iceberg.IcebergTypes.unsupported(f.dataType).foreach { why =>
      throw refusal(table, key, s"Iceberg metadata with column ${f.name}", why)
    })
    iceberg.IcebergPaths.of(table.name, table.location, table.options.icebergStorage, table.options.icebergStorageLocation)
    if (options.icebergStorage == "hive-catalog") table.hooks.icebergRegistry match {
      case Some(registry) => registry.check(table)
      case None => throw refusal(table, key, "metadata.iceberg.storage 'hive-catalog' on a table not loaded through " +
        "a filesystem or Hive Metastore catalog", "its Iceberg table is registered under the catalog's database and " +
        "table name, which this table has none of")
    }
  }

  /**
   * Refuses reading `table` as of `snapshot` if its schema or index files say the read would differ;
   * deletion vectors only when the read does not apply them (`appliesDeletionVectors`).
   */
  def requireReadable(table: FileStoreTable, snapshot: Option[Snapshot], appliesDeletionVectors: Boolean = false): Unit = {
    snapshot.foreach(requireIndexes(table, _, appliesDeletionVectors))
    requireSchema(table, Access.Read, appliesDeletionVectors)
  }

  /** Refuses writing `table` (at its latest snapshot) if what it would write or rewrite breaks a feature. */
  def requireWritable(table: FileStoreTable): Unit = {
    table.io.checkPublishable(table.location)
    requireFormatsHold(table.name, table.schema)
    // With the option set, writes keep the vectors; without it, an append table's would rewrite files without them.
    table.snapshotManager.latest().foreach(requireIndexes(table, _, table.options.deletionVectors))
    requireSchema(table, Access.Write)
  }

  /**
   * Options set by another engine that change what `access` gives, column types, and a key table
   * with deletion vectors for reads that do not apply them (`appliesDeletionVectors`).
   */
  def requireSchema(table: FileStoreTable, access: Access, appliesDeletionVectors: Boolean = false): Unit = {
    requireColumnTypes(table)
    table.schema.options.toSeq.sortBy(_._1).foreach { case (key, value) =>
      PaimonOptions.get(key).foreach { option =>
        if (!option.scope.table && access == Access.Read) {
          throw refusal(table, key, s"the read option '$key' = '$value' as a table option",
            "reads here take read options from the read, and would not apply it to every read")
        }
        option.refusalOn(access, value).foreach(e => throw new UnsupportedFeatureException(
          s"table ${table.name}: ${e.getMessage}; the table cannot be ${verb(access)} here", key))
      }
    }
    if (table.options.icebergStorage != "disabled" && access == Access.Write) requireIcebergWritable(table)
    if (!table.isPrimaryKeyTable && table.options.bucket > 0 && table.options.deletionVectors && access == Access.Write) {
      throw refusal(table, TableOptions.DeletionVectors, "deletion vectors on a bucketed append table",
        "their vectors would be kept per partition, where Paimon keeps them per bucket")
    }
    if (table.isPrimaryKeyTable && table.options.deletionVectors && access == Access.Read && !appliesDeletionVectors) {
      throw refusal(table, TableOptions.DeletionVectors, "deletion vectors on a primary-key table",
        "this read would merge level-0 files, which readers of such tables skip")
    }
  }

  /** Refuses a schema one of whose data file formats cannot hold a column as Paimon writes that format. */
  def requireFormatsHold(table: String, schema: TableSchema): Unit = {
    val o = TableOptions(schema.options)
    val formats = (o.levelFormats.formats.values.toSeq :+ o.fileWriteSpec.format :+ o.changelogWriteSpec.format).distinct
    formats.iterator.flatMap(f => UnwritableColumns.find(f, schema.fields).map(f -> _)).nextOption().foreach {
      case (format, (column, why)) => throw new UnsupportedFeatureException(s"table $table: column '$column' " +
        s"cannot be written to $format data files, as Paimon writes them ($why); choose another file.format", TableOptions.FileFormat)
    }
  }

  /** Index files of kinds this engine does not apply: deletion vectors, global and unknown indexes. */
  def requireIndexes(table: FileStoreTable, snapshot: Snapshot, appliesDeletionVectors: Boolean = false): Unit =
    table.newManifestStore().indexFiles(Some(snapshot)).map(_.indexType).distinct
      .filterNot(t => appliesDeletionVectors && t == IndexManifestAvro.DeletionVectorsIndex)
      .find(_ != IndexManifestAvro.HashIndex).foreach {
        case t @ IndexManifestAvro.DeletionVectorsIndex => throw refusal(table, t,
          s"deletion vectors (index files of type $t in snapshot ${snapshot.id})", "the rows they delete would be read")
        case t => throw refusal(table, t, s"index files of type '$t' (snapshot ${snapshot.id})",
          "this index type is unknown here, and what it changes cannot be told")
      }

  /** A data file that only another engine's reader reads right: another format, a column subset. */
  def requireDataFile(table: FileStoreTable, bucket: Int, file: DataFileMeta): Unit = {
    val format = DataFileFormat.of(file.fileName)
    if (!DataFileFormat.Readable(format)) {
      throw refusal(table, TableOptions.FileFormat, s"$format data files (${file.fileName})",
        "only Parquet, ORC and Avro data files are read")
    }
    // A writer may list every column, Paimon's compaction of a row-tracking table the row-tracking
    // columns too; only a file that lacks some of the table's holds part of its rows.
    val whole = table.schemaWithId(file.schemaId).fieldNames.toSet
    file.writeCols.filterNot(c => c.toSet -- RowTrackingFields.names == whole).foreach { columns =>
      throw refusal(table, "data-evolution.enabled", s"data files holding some of a row's columns " +
        s"(${file.fileName} holds ${columns.mkString(", ")})", "rows spread over several files are not merged")
    }
  }

  private def verb(access: Access): String = if (access == Access.Read) "read" else "written"

  private def refusal(table: FileStoreTable, feature: String, what: String, why: String) =
    new UnsupportedFeatureException(s"table ${table.name} uses $what, which paimon-spark does not support yet: $why",
      feature)

  private def columnType(schema: TableSchema): Option[String] = {
    def find(t: DataType): Option[String] = t match {
      case AtomicType(TypeRoot.Other(spelling), _, _) => Some(spelling.takeWhile(_.isLetter).toUpperCase)
      case a: ArrayType => find(a.element)
      case m: MultisetType => find(m.element)
      case m: MapType => find(m.key).orElse(find(m.value))
      case r: RowType => r.fields.iterator.map(f => find(f.dataType)).collectFirst { case Some(x) => x }
      case _ => None
    }
    schema.fields.iterator.map(f => find(f.dataType)).collectFirst { case Some(x) => x }
  }
}
