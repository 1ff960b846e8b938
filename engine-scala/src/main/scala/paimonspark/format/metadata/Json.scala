package paimonspark.format.metadata

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{ArrayNode, ObjectNode}

import scala.jdk.CollectionConverters._

/** Jackson helpers shared by the JSON codecs of schemas, snapshots and tags. */
private[paimonspark] object Json {
  val mapper = new ObjectMapper()

  def obj(): ObjectNode = mapper.createObjectNode()
  def arr(): ArrayNode = mapper.createArrayNode()

  def render(node: JsonNode): String = mapper.writerWithDefaultPrettyPrinter().writeValueAsString(node)

  def parse(text: String): JsonNode = mapper.readTree(text)

  def field(node: JsonNode, name: String): Option[JsonNode] =
    Option(node.get(name)).filterNot(_.isNull)

  def required(node: JsonNode, name: String): JsonNode =
    field(node, name).getOrElse(throw new IllegalArgumentException(s"missing field '$name'"))

  def stringMap(node: Option[JsonNode]): Map[String, String] =
    node.map(_.properties().asScala.map(e => e.getKey -> e.getValue.asText()).toMap).getOrElse(Map.empty)

  def putStringMap(parent: ObjectNode, name: String, values: Map[String, String]): Unit = {
    val node = parent.putObject(name)
    values.toSeq.sortBy(_._1).foreach { case (k, v) => node.put(k, v) }
  }
}
