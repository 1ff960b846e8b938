package paimonspark.fs

import org.apache.hadoop.conf.Configuration

/**
 * Paimon's catalog options for S3 (`s3.endpoint`, `s3.access-key`, `s3.secret-key`,
 * `s3.path-style-access`, ...) as the Hadoop settings S3A reads, mapped the way Paimon's own S3
 * FileIO maps them: the prefixes `s3.`, `s3a.` and `fs.s3a.` all become `fs.s3a.`, and Paimon's
 * dashed spellings of a few keys are copied to S3A's dotted ones.
 */
object S3Options {
  private val Prefixes = Seq("s3.", "s3a.", "fs.s3a.")
  private val HadoopPrefix = "fs.s3a."
  private val Mirrored = Seq(
    "fs.s3a.access-key" -> "fs.s3a.access.key",
    "fs.s3a.secret-key" -> "fs.s3a.secret.key",
    "fs.s3a.path-style-access" -> "fs.s3a.path.style.access",
    "fs.s3a.signer-type" -> "fs.s3a.signing-algorithm")

  /** Hadoop 3.5 maps only `s3a://`; `s3://` paths (as Paimon and pypaimon write them) go to S3A too. */
  private val S3SchemeImpl = "fs.s3.impl" -> "org.apache.hadoop.fs.s3a.S3AFileSystem"

  /** The S3A settings `options` give, prefixes resolved and dashed keys mirrored. */
  def hadoopSettings(options: Map[String, String]): Map[String, String] = {
    val mapped = options.toSeq.flatMap { case (key, value) =>
      Prefixes.find(key.startsWith).map(p => HadoopPrefix + key.substring(p.length) -> value)
    }.toMap
    mapped ++ Mirrored.flatMap { case (dashed, dotted) => mapped.get(dashed).map(dotted -> _) }
  }

  /** `conf` with the S3A settings of `options` and the `s3://` mapping (unless `conf` maps `s3` already). */
  def applyTo(conf: Configuration, options: Map[String, String]): Configuration = {
    if (conf.get(S3SchemeImpl._1) == null) conf.set(S3SchemeImpl._1, S3SchemeImpl._2)
    hadoopSettings(options).foreach { case (k, v) => conf.set(k, v) }
    conf
  }
}
