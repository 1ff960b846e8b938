package paimonspark.format.metadata

import java.math.BigDecimal
import java.time.{Duration, LocalDateTime}

import com.fasterxml.jackson.databind.JsonNode

/**
 * The content of `tag/tag-<name>`: the tagged snapshot's JSON, with the same manifest lists, plus
 * when the tag was made and how long it is kept. Paimon writes both only for a tag with a
 * retention time; a tag without one is the plain snapshot JSON.
 */
final case class Tag(snapshot: Snapshot, createTime: Option[LocalDateTime], timeRetained: Option[Duration])

/**
 * Tags as Paimon's Jackson writes them: `tagCreateTime` is a LocalDateTime as an array
 * `[year, month, day, hour, minute(, second(, nano))]` (second and nano only when not zero, as
 * Jackson's JSR-310 module omits them), `tagTimeRetained` a Duration as decimal seconds.
 */
object TagJson {
  val CreateTime = "tagCreateTime"
  val TimeRetained = "tagTimeRetained"

  def write(tag: Tag): String = {
    val n = SnapshotJson.toNode(tag.snapshot)
    tag.createTime.filter(_ => tag.timeRetained.isDefined).foreach { t =>
      val a = n.putArray(CreateTime)
      Seq(t.getYear, t.getMonthValue, t.getDayOfMonth, t.getHour, t.getMinute).foreach(a.add(_))
      if (t.getSecond != 0 || t.getNano != 0) a.add(t.getSecond)
      if (t.getNano != 0) a.add(t.getNano)
    }
    tag.timeRetained.foreach(d => n.put(TimeRetained, seconds(d)))
    Json.render(n)
  }

  def read(text: String): Tag = {
    val n = Json.parse(text)
    Tag(SnapshotJson.fromNode(n), Json.field(n, CreateTime).map(dateTime), Json.field(n, TimeRetained).map(duration))
  }

  /** Decimal seconds with nine fraction digits (`86400.000000000`), as Jackson writes a Duration. */
  private def seconds(d: Duration): BigDecimal =
    BigDecimal.valueOf(d.getSeconds).add(BigDecimal.valueOf(d.getNano.toLong, 9)).setScale(9)

  private def dateTime(n: JsonNode): LocalDateTime =
    if (n.isArray) {
      val p = (0 until n.size()).map(i => n.get(i).asInt())
      def at(i: Int) = p.lift(i).getOrElse(0)
      LocalDateTime.of(p(0), p(1), p(2), at(3), at(4), at(5), at(6))
    } else LocalDateTime.parse(n.asText())

  private def duration(n: JsonNode): Duration =
    if (n.isNumber) {
      val d = n.decimalValue()
      val whole = d.longValue()
      Duration.ofSeconds(whole, d.subtract(BigDecimal.valueOf(whole)).movePointRight(9).longValue())
    } else Duration.parse(n.asText())
}
