package paimonspark.table

import java.nio.charset.StandardCharsets.UTF_8

import paimonspark.TableNotFoundException
import paimonspark.format.TablePaths
import paimonspark.format.metadata.{SchemaJson, TableSchema}
import paimonspark.fs.{FileIO, PublishedFile}
import paimonspark.table.options.PaimonOptions

/** Reads and publishes the versions `schema/schema-N` of one table. */
final class SchemaManager(io: FileIO, paths: TablePaths) extends Serializable {

  def listIds(): Seq[Long] =
    io.list(paths.schemaDir).filter(PublishedFile.isComplete).flatMap(s => TablePaths.idOf(s.getPath.getName, TablePaths.SchemaPrefix)).sorted

  def exists(id: Long): Boolean = io.existsPublished(paths.schemaFile(id))

  def latest(): Option[TableSchema] = listIds().lastOption.map(read)

  def latestOrFail(): TableSchema =
    latest().getOrElse(throw new TableNotFoundException(paths.root.toString, s"${paths.root} is not a Paimon table (no schema/schema-N file)"))

  /** Schema `id`, its options' fallback keys read as the options they stand for. */
  def read(id: Long): TableSchema = {
    val schema = MetadataFile.read(io, paths.schemaFile(id))(bytes => SchemaJson.read(new String(bytes, UTF_8)))
    schema.copy(options = PaimonOptions.canonical(schema.options))
  }

  /** Publishes `schema` under its id; false if a schema with that id already exists. */
  def publish(schema: TableSchema): Boolean = {
    io.publish(paths.schemaFile(schema.id), SchemaJson.write(schema).getBytes(UTF_8))
  }

  /** Takes back schema `id`, which nothing has used yet: its catalog refused it. */
  def withdraw(id: Long): Unit = io.delete(paths.schemaFile(id), recursive = false)
}
