package paimonspark.spark.catalog

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import paimonspark.fs.{FileIO, HadoopConf, S3Options}

/**
 * The file I/O of a catalog or of a path given to the `paimon` source: the session's Hadoop settings
 * (`spark.hadoop.*`) with the catalog's object-store options (`s3.endpoint`, ...) on top. Tables
 * carry it to the executors.
 */
object SessionFileIO {
  def apply(options: CaseInsensitiveStringMap = CaseInsensitiveStringMap.empty()): FileIO = {
    val settings = options.asCaseSensitiveMap().asScala.toMap
    new FileIO(new HadoopConf(S3Options.applyTo(SparkSession.active.sessionState.newHadoopConf(), settings)))
  }
}
