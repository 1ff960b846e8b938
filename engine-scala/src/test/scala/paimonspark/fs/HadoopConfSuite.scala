package paimonspark.fs

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

/** A [[HadoopConf]] arrives as it left: every property's raw value, as `Configuration.readFields` would set it. */
class HadoopConfSuite extends AnyFunSuite {
  private def travelled(conf: HadoopConf): Configuration = {
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    out.writeObject(conf)
    out.close()
    new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)).readObject().asInstanceOf[HadoopConf].value
  }

  private def properties(conf: Configuration): Map[String, String] =
    conf.iterator().asScala.map(p => p.getKey -> p.getValue).toMap

  test("the defaults, values set since, variables unsubstituted, deprecated names and long values all travel") {
    val conf = new Configuration()
    conf.set("paimon.test.base", "/warehouse")
    conf.set("paimon.test.path", "${paimon.test.base}/t")
    conf.set("fs.default.name", "file:///")  // deprecated: sets fs.defaultFS too
    conf.set("paimon.test.long", "x" * 100000)  // past DataOutput.writeUTF's 64 KB
    conf.set("paimon.test.unicode", "snö ☃")
    val copy = travelled(new HadoopConf(conf))
    assert(properties(copy) == properties(conf))
    assert(properties(copy).contains("hadoop.tmp.dir"), "core-default.xml's properties")
    assert(copy.getRaw("paimon.test.path") == "${paimon.test.base}/t")
    assert(copy.get("paimon.test.path") == "/warehouse/t")
    assert(copy.get("fs.defaultFS") == "file:///")
  }

  test("an empty configuration travels empty") {
    assert(properties(travelled(new HadoopConf(new Configuration(false)))).isEmpty)
  }
}
