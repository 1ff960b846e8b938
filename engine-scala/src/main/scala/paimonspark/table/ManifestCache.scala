package paimonspark.table

import java.util.{LinkedHashMap => JLinkedHashMap}

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
  private val files = new JLinkedHashMap[String, Array[Byte]](256, 0.75f, true)

  def get(path: Path): Option[Array[Byte]] = synchronized(Option(files.get(path.toString)))

  /** Keeps `content`, then drops the least recently used files until the whole is within its bound. */
  def put(path: Path, content: Array[Byte]): Unit = if (content.length <= MaxFileBytes) synchronized {
    if (files.putIfAbsent(path.toString, content) == null) {
      bytes += content.length
      val eldest = files.values().iterator()
      while (bytes > MaxBytes) {
        bytes -= eldest.next().length
        eldest.remove()
      }
    }
  }
}
