package paimonspark.fs

import org.apache.hadoop.fs.FileSystem

/**
 * Connectors whose plain `create(path, overwrite = false)` is proven to be exclusive (of writers racing
 * for one name exactly one creates it) though they do not declare Hadoop's conditional-create
 * capability, each proven by racing writers against its store's emulator (`fs/PublishOnGcsAndAzureSuite`):
 *  - Google's gcs-connector uploads with `ifGenerationMatch=0`; the losers fail with 412.
 *  - ABFS on a Blob-endpoint account sends a PutBlob with `If-None-Match: *` (409 for the losers), but
 *    only with `fs.azure.enable.create.blob.idempotency=false`: with it true (Hadoop 3.5.0's default)
 *    the client checks the name first and then puts unconditionally, and 2 or 3 of 4 racers are told
 *    they created it. The DFS endpoint (hierarchical-namespace accounts) is not proven.
 */
private[fs] object ExclusiveCreates {
  private val Gcs = "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem"
  private val Abfs = "org.apache.hadoop.fs.azurebfs.AzureBlobFileSystem"

  /** The ABFS settings under which its creates are exclusive, as sessions should set them (docs/storage.md). */
  val AbfsSettings: Seq[(String, String)] = Seq("fs.azure.account.hns.enabled" -> "false",
    "fs.azure.fns.account.service.type" -> "BLOB", "fs.azure.enable.create.blob.idempotency" -> "false")

  def proven(fs: FileSystem): Boolean = is(fs, Gcs) || (is(fs, Abfs) && lacking(fs).isEmpty)

  /** For a connector that is exclusive only with settings `fs` was not given, what it lacks, in words. */
  def lacking(fs: FileSystem): Option[String] = if (!is(fs, Abfs)) None else {
    val wrong = AbfsSettings.filterNot { case (key, value) => abfsSetting(fs, key).exists(_.equalsIgnoreCase(value)) }
    Option.when(wrong.nonEmpty)(s"ABFS creates a file exclusively only on a Blob-endpoint account with " +
      AbfsSettings.map { case (k, v) => s"$k=$v" }.mkString(", ") + "; here " +
      wrong.map { case (k, _) => s"$k is ${abfsSetting(fs, k).getOrElse("unset")}" }.mkString(", "))
  }

  // ABFS reads a setting for the account first (`<key>.<account host>`), then for every account.
  private def abfsSetting(fs: FileSystem, key: String): Option[String] =
    Option(fs.getConf.get(s"$key.${fs.getUri.getHost}")).orElse(Option(fs.getConf.get(key)))

  private def is(fs: FileSystem, connector: String): Boolean =
    Iterator.iterate[Class[_]](fs.getClass)(_.getSuperclass).takeWhile(_ != null).exists(_.getName == connector)
}
