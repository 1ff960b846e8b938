package paimonspark.table

import java.util.{LinkedHashMap => JLinkedHashMap, Map => JMap}

import org.apache.hadoop.fs.Path

/**
 * The bytes of manifests, manifest lists and index manifests this JVM has read, least recently used
 * first out, as Paimon's manifest cache keeps them (`cache.manifest.small-file-*`): a commit reads
 * the lists its previous commit planned from, and a write's compaction plan reads the manifests the
 * commit before it read. They are immutable and named by a random UUID, so a path read once always
 * has the same bytes; nothing else is cached by name, as `snapshot-N` and `schema-N` are not unique
 * across a dropped and re-created table. Only what was read is kept: a write does not put its own
 * files here, so the first read of each file checks it.
 */
private[table] object ManifestCache {
  /** Files above this size are read every time (Paimon's small-file threshold, 1 MB). */
  private val MaxFileBytes = 1L << 20
  private val MaxBytes = 64L << 20

  private var bytes = 0L
  private val files = new JLinkedHashMap[String, Array[Byte]](256, 0.75f, true) {
    override def removeEldestEntry(eldest: JMap.Entry[String, Array[Byte]]): Boolean = {
      val over = bytes > MaxBytes
      if (over) bytes -= eldest.getValue.length
      over
    }
  }

  def get(path: Path): Option[Array[Byte]] = synchronized(Option(files.get(path.toString)))

  def put(path: Path, content: Array[Byte]): Unit = if (content.length <= MaxFileBytes) synchronized {
    if (!files.containsKey(path.toString)) {
      bytes += content.length
      files.put(path.toString, content)
    }
  }
}
