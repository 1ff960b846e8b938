package paimonspark.catalog.rest

import paimonspark.TableNotFoundException
import paimonspark.format.metadata.Json
import paimonspark.fs.{CredentialSource, Credentials}

/**
 * A REST catalog's storage credentials for the files of table `db.table` (`data-token.enabled`):
 * `GET .../tables/<t>/token`, whose `token` holds storage settings (`fs.s3a.access.key`, `s3.access-key`,
 * `fs.oss.accessKeyId`, ...) and `expiresAtMillis` when they stop working. Every branch of the table
 * shares its files, and so its credentials.
 */
final class RestTokens(settings: RestSettings, db: String, table: String) extends CredentialSource {
  // One client per table's credentials (and per JVM they travel to): its start asks the server's config.
  @transient private lazy val client = new RestClient(settings)

  override def fetch(): Credentials = {
    val answer = try client.get(s"${RestCatalog.tablePath(client, db, table)}/token") catch {
      case e: RestStatusException if e.status == 404 => throw new TableNotFoundException(s"$db.$table",
        s"table $db.$table: catalog ${settings.catalog} has no storage credentials for it: ${e.getMessage}")
    }
    Credentials(Json.stringMap(Json.field(answer, "token")),
      Json.field(answer, "expiresAtMillis").map(_.asLong()).getOrElse(Long.MaxValue))
  }
}
