package paimonspark.catalog.rest

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}

/**
 * A REST catalog's options, by Paimon's names (`RESTCatalogOptions`): the server's `uri`, `warehouse` (the
 * catalog's name on the server, not a path), `token.provider` = `bear` with its `token`, and `header.<Name>`
 * headers sent with every request. Checked when the catalog starts; the token is never shown, in errors or
 * in `toString`. Serializable: the hooks tables carry to executors reach the server from the settings alone.
 */
final case class RestSettings(catalog: String, uri: String, warehouse: String, token: String,
    headers: Map[String, String], options: Map[String, String]) {
  override def toString: String = s"RestSettings($catalog, $uri, $warehouse)"
}

object RestSettings {
  val Uri = "uri"
  val Warehouse = "warehouse"
  val TokenProvider = "token.provider"
  val Token = "token"
  val HeaderPrefix = "header."

  def apply(catalog: String, options: Map[String, String]): RestSettings = {
    def option(key: String) = s"spark.sql.catalog.$catalog.$key"
    def required(key: String, what: String): String = options.get(key).map(_.trim).filter(_.nonEmpty).getOrElse(
      throw new InvalidOptionException(option(key), s"catalog $catalog: metastore=rest needs ${option(key)} ($what)"))
    val uri = required(Uri, "the catalog server's URL, http://host:port").stripSuffix("/")
    if (!uri.matches("(?i)https?://.+")) {
      throw new InvalidOptionException(option(Uri), s"catalog $catalog: ${option(Uri)} must be an http:// or https:// " +
        s"URL, not '$uri'")
    }
    val warehouse = required(Warehouse, "the catalog's name on the server")
    val token = required(TokenProvider, "bear") match {
      case "bear" => required(Token, "the bearer token the server takes")
      case "dlf" => throw new UnsupportedFeatureException(s"catalog $catalog: ${option(TokenProvider)}=dlf (Alibaba " +
        "Cloud DLF's signed requests) is not supported yet; use bear with a token", TokenProvider)
      case other => throw new InvalidOptionException(option(TokenProvider),
        s"catalog $catalog: ${option(TokenProvider)} must be bear, not '$other'")
    }
    val headers = options.collect { case (k, v) if k.startsWith(HeaderPrefix) => k.stripPrefix(HeaderPrefix) -> v }
    RestSettings(catalog, uri, warehouse, token, headers, options)
  }
}
