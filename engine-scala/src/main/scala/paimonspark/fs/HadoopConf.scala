package paimonspark.fs

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream, ObjectInputStream, ObjectOutputStream}

import org.apache.hadoop.conf.Configuration

/**
 * A Hadoop configuration that travels to executors (Configuration itself is not Serializable). It
 * is serialized once: Spark serializes a job's closures more than once (checked, then shipped with
 * each stage), and a configuration is about a thousand properties, which cost a small commit's job
 * a sixth of its CPU when written each time. The configuration is never changed once wrapped here.
 */
final class HadoopConf(@transient private var conf: Configuration) extends Serializable {
  def value: Configuration = conf

  @transient private lazy val serialized: Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new DataOutputStream(bytes)
    conf.write(out)
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
    conf = new Configuration(false)
    conf.readFields(new DataInputStream(new ByteArrayInputStream(bytes)))
  }
}
