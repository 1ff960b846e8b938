package paimonspark.spark.read

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream, ObjectStreamClass}

import scala.collection.mutable.ArrayBuffer

import paimonspark.fs.HadoopConf

/**
 * Copies of one [[LayoutReader]], each with a Spark reader factory of its own (a factory closes the
 * last file it opened when it opens another, so files read in step need one each), made by Java
 * serialization, the only way to construct Spark's factories on executors (their SQLConf is not
 * readable there). What the copies may share is not copied: the Hadoop configurations (the
 * table's, and the reader's own copy of the broadcast one). Copying those was most of a copy's cost,
 * and a merge of five runs needs five copies per task: in a profile of such a scan (key column only),
 * cloning was 15% of the samples and opening files 25%; with shared parts, copies were 1-2.5%.
 * The reader is serialized once; each copy only reads the bytes back.
 */
private[read] final class ReaderCopies(reader: LayoutReader) {
  private val shared = ArrayBuffer.empty[AnyRef]

  private val bytes: Array[Byte] = {
    val buffer = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(buffer) {
      enableReplaceObject(true)
      override def replaceObject(obj: AnyRef): AnyRef = obj match {
        case _: HadoopConf | _: ReaderConf => shared += obj; SharedPart(shared.size - 1)
        case other => other
      }
    }
    try out.writeObject(reader) finally out.close()
    buffer.toByteArray
  }

  def copy(): LayoutReader = {
    val in = new ObjectInputStream(new ByteArrayInputStream(bytes)) {
      enableResolveObject(true)
      override def resolveObject(obj: AnyRef): AnyRef = obj match {
        case SharedPart(index) => shared(index)
        case other => other
      }
      // Our classes come from the engine's jar, which the stream's default loader may not see.
      override def resolveClass(desc: ObjectStreamClass): Class[_] =
        try Class.forName(desc.getName, false, classOf[ReaderCopies].getClassLoader)
        catch { case _: ClassNotFoundException => super.resolveClass(desc) }
    }
    try in.readObject().asInstanceOf[LayoutReader] finally in.close()
  }
}

/** Where a copy takes a part of the original instead of a copy of it. */
private final case class SharedPart(index: Int)
