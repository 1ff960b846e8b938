package paimonspark

import java.net.{InetAddress, ServerSocket}

/** Servers the suites start listen on 127.0.0.1 only. */
object Loopback {
  def freePort(): Int = { val s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress); try s.getLocalPort finally s.close() }

  /** Waits until a server process is `ready`; kills it and fails, with `details`, if it ends first or takes too long. */
  def awaitStart(process: Process, what: String, seconds: Int)(ready: => Boolean)(details: => String): Unit = {
    val deadline = System.nanoTime() + seconds * 1000L * 1000 * 1000
    while (!ready) {
      if (!process.isAlive || System.nanoTime() > deadline) {
        process.destroyForcibly()
        throw new IllegalStateException(s"$what did not start$details")
      }
      Thread.sleep(100)
    }
  }

  /** The local addresses of the sockets listening on `port`, as Linux's /proc/net/tcp and tcp6 write them. */
  def listeners(port: Int): Seq[String] = Seq("/proc/net/tcp", "/proc/net/tcp6").flatMap { table =>
    val source = scala.io.Source.fromFile(table)
    try source.getLines().drop(1).map(_.trim.split("\\s+")).toList finally source.close()
  }.collect { case fields if fields(3) == "0A" && Integer.parseInt(fields(1).split(":")(1), 16) == port =>
    fields(1).split(":")(0)
  }

  /** 127.0.0.1 as those tables write it, the same mapped into IPv6 (where Java binds it), and ::1. */
  val LoopbackAddresses = Set("0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000")
}
