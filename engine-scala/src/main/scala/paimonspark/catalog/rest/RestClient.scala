package paimonspark.catalog.rest

import java.io.IOException
import java.net.URI
import java.net.URLEncoder
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets.UTF_8
import java.time.Duration

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode

import paimonspark.{CatalogAccessException, MetastoreException, UnsupportedFeatureException}
import paimonspark.format.metadata.Json

/**
 * An answer the caller decides on: 404 (no such resource, `resourceType` says which kind: DATABASE, TABLE,
 * SNAPSHOT, ...) or 409 (it exists already). The REST catalog turns each into the engine's own error.
 */
final class RestStatusException(val status: Int, val resourceType: Option[String], message: String)
    extends RuntimeException(message)

/**
 * Requests to a Paimon REST catalog server as Paimon 1.4.2's client makes them: JSON bodies, the bearer
 * token and `header.*` headers on each, paths under `/v1/<prefix>` once `/v1/config` gave the prefix. A
 * refusal (401, 403) is a [[CatalogAccessException]] naming the catalog, a server that cannot be reached or
 * fails a [[MetastoreException]] naming its URL; neither message shows the token.
 */
final class RestClient(settings: RestSettings) {
  private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build()
  private def describe = s"catalog ${settings.catalog}"

  /**
   * The catalog's options as Paimon merges them at start: the server's defaults, then the client's own,
   * then the server's overrides (`GET /v1/config?warehouse=<name>`).
   */
  lazy val options: Map[String, String] = {
    val config = get("/v1/config", Seq(RestSettings.Warehouse -> settings.warehouse))
    Json.stringMap(Json.field(config, "defaults")) ++ settings.options ++ Json.stringMap(Json.field(config, "overrides"))
  }

  /** Where the catalog's resources are: `/v1/<prefix>`. */
  lazy val root: String = "/v1" + options.get("prefix").filter(_.nonEmpty).fold("")("/" + encode(_))

  def get(path: String, query: Seq[(String, String)] = Nil): JsonNode = send("GET", path, query, None)
  def post(path: String, body: JsonNode): JsonNode = send("POST", path, Nil, Some(body))
  def delete(path: String): JsonNode = send("DELETE", path, Nil, None)

  /** Every item of a paged list (`field` of each page), following `nextPageToken` to the last page. */
  def listAll(path: String, field: String, query: Seq[(String, String)] = Nil): Seq[JsonNode] = {
    val items = ArrayBuffer.empty[JsonNode]
    var token: Option[String] = None
    var more = true
    while (more) {
      val page = get(path, query ++ token.map("pageToken" -> _))
      Json.field(page, field).foreach(_.elements().asScala.foreach(items += _))
      token = Json.field(page, "nextPageToken").map(_.asText()).filter(_.nonEmpty)
      more = token.isDefined
    }
    items.toSeq
  }

  private def send(method: String, path: String, query: Seq[(String, String)], body: Option[JsonNode]): JsonNode = {
    val queryText = if (query.isEmpty) "" else query.map { case (k, v) => s"${encode(k)}=${encode(v)}" }.mkString("?", "&", "")
    val builder = HttpRequest.newBuilder(URI.create(settings.uri + path + queryText)).timeout(Duration.ofSeconds(120))
      .header("Content-Type", "application/json").header("Authorization", s"Bearer ${settings.token}")
    settings.headers.foreach { case (k, v) => builder.header(k, v) }
    builder.method(method, body.fold(HttpRequest.BodyPublishers.noBody())(b =>
      HttpRequest.BodyPublishers.ofString(Json.render(b), UTF_8)))
    val response = try http.send(builder.build(), HttpResponse.BodyHandlers.ofString(UTF_8)) catch {
      case e: IOException => throw new MetastoreException(settings.uri, s"$describe: the REST catalog server at " +
        s"${settings.uri} cannot be reached ($method $path): ${e.getClass.getSimpleName}: ${e.getMessage}", e)
    }
    val text = Option(response.body()).getOrElse("")
    val json = if (text.trim.isEmpty) Json.obj() else try Json.parse(text) catch { case _: IOException => Json.obj() }
    def message = Json.field(json, "message").map(_.asText()).getOrElse(text.take(500))
    response.statusCode() match {
      case ok if ok / 100 == 2 => json
      case 401 => throw new CatalogAccessException(settings.catalog, s"$describe: the REST catalog server at " +
        s"${settings.uri} refused access (401 Unauthorized): its token is not accepted; nothing was changed")
      case 403 => throw new CatalogAccessException(settings.catalog, s"$describe: the REST catalog server at " +
        s"${settings.uri} refused access (403 Forbidden) to $method $path: $message; nothing was changed")
      case status @ (404 | 409) =>
        throw new RestStatusException(status, Json.field(json, "resourceType").map(_.asText()), message)
      case 501 => throw new UnsupportedFeatureException(s"$describe: the REST catalog server does not implement " +
        s"$method $path: $message")
      case status => throw new MetastoreException(settings.uri, s"$describe: the REST catalog server at " +
        s"${settings.uri} answered $status to $method $path: $message")
    }
  }

  /** A name as one segment of a path, or a query value, as Paimon's `RESTUtil.encodeString` writes it. */
  def encode(name: String): String = URLEncoder.encode(name, UTF_8)
}
