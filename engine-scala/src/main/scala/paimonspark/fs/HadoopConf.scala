package paimonspark.fs

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream, ObjectInputStream, ObjectOutputStream}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.io.Text

/**
 * A Hadoop configuration that travels to executors (Configuration itself is not Serializable). It
 * is serialized once: Spark serializes a job's closures more than once (checked, then shipped with
 * each stage), and a configuration is about a thousand properties. Only names and values travel, as
 * `Configuration.readFields` sets them: `Configuration.write` also writes where each property came
 * from, every such name gzip-compressed on its own. Broadcasting a scan's reader configurations that
 * way cost a merge-on-read scan of 7 M rows about 110 ms of CPU (5%) in a session with S3A, GCS and
 * ABFS set up, 20 ms in one without (async-profiler; tasks reading it back 13 ms more); now about 9
 * and 3 (and 3). The configuration is never changed once wrapped here.
 */
final class HadoopConf(@transient private var conf: Configuration) extends Serializable {
  def value: Configuration = conf

  @transient private lazy val serialized: Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new DataOutputStream(bytes)
    // The raw values, unsubstituted, as Configuration.write writes them.
    val properties = conf.iterator().asScala.toSeq
    out.writeInt(properties.size)
    properties.foreach { p => Text.writeString(out, p.getKey); Text.writeString(out, p.getValue) }
    out.flush()
    bytes.toByteArray
  }

  private def writeObject(out: ObjectOutputStream): Unit = {
    out.defaultWriteObject()
    out.writeInt(serialized.length)
    out.write(serialized)
  }

  private def readObject(in: ObjectInputStream): Unit = {
    in.defaultReadObject()
    val bytes = new Array[Byte](in.readInt())
    in.readFully(bytes)
    val properties = new DataInputStream(new ByteArrayInputStream(bytes))
    conf = new Configuration(false)
    (0 until properties.readInt()).foreach(_ => conf.set(Text.readString(properties), Text.readString(properties)))
  }
}
