package paimonspark.fs

import java.security.PrivilegedExceptionAction
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.security.UserGroupInformation

/** Storage settings a catalog hands out for one table's files, and when they stop working. */
final case class Credentials(settings: Map[String, String], expiresAtMillis: Long) {
  /** The Hadoop settings they give: `fs.*` keys as they are, Paimon's S3 spellings mapped as for catalogs. */
  def hadoopSettings: Map[String, String] =
    settings.filter(_._1.startsWith("fs.")) ++ S3Options.hadoopSettings(settings)

  override def toString: String = s"Credentials(${settings.keys.toSeq.sorted.mkString(", ")}; expires $expiresAtMillis)"
}

/** Where a table's credentials come from (Paimon's REST catalog: `GET .../token`). */
trait CredentialSource extends Serializable {
  def fetch(): Credentials
}

/**
 * A table's short-lived storage credentials (Paimon's data tokens): fetched when first needed and again
 * once they have less than an hour to live, as Paimon's `RESTTokenFileIO` does, so that every use gets
 * credentials good for at least an hour. They travel to executors with the table.
 *
 * Hadoop caches one FileSystem per scheme, bucket and user, whatever the settings it was created with;
 * so files are reached as a user of their own per set of credentials ([[StorageCredentials.as]]), whose
 * FileSystems are created with them. Another table in the same bucket, or the session, keeps its own.
 */
final class StorageCredentials(source: CredentialSource) extends Serializable {
  @volatile private var current: Credentials = _
  @transient @volatile private var configured: (Credentials, Configuration) = _

  def get(): Credentials = {
    if (stale(current)) synchronized { if (stale(current)) current = source.fetch() }
    current
  }

  /** The current credentials, and `base` with their settings (one copy per set of credentials). */
  def applied(base: Configuration): (Credentials, Configuration) = {
    val now = get()
    val last = configured
    if (last != null && (last._1 eq now)) last
    else {
      val conf = new Configuration(base)
      now.hadoopSettings.foreach { case (k, v) => conf.set(k, v) }
      configured = (now, conf)
      configured
    }
  }

  private def stale(c: Credentials): Boolean =
    c == null || c.expiresAtMillis - System.currentTimeMillis() < StorageCredentials.RefreshMillis
}

object StorageCredentials {
  /** Paimon's `TOKEN_EXPIRATION_SAFE_TIME_MILLIS`: credentials with less than this to live are refreshed. */
  val RefreshMillis: Long = 3600 * 1000L

  private val users = new ConcurrentHashMap[Credentials, UserGroupInformation]()

  /** Runs `f` as the user of `credentials`: the FileSystems it gets from Hadoop are theirs. */
  def as[T](credentials: Credentials)(f: => T): T = users.computeIfAbsent(credentials,
    _ => UserGroupInformation.createRemoteUser(UserGroupInformation.getCurrentUser.getShortUserName))
    .doAs(new PrivilegedExceptionAction[T] { override def run(): T = f })
}
