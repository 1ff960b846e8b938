package paimonspark.fs

/**
 * What an object store's failure means, read from the exception and its causes: the connectors (S3A
 * and the AWS SDK, gcs-connector, ABFS) are on the classpath only when a warehouse is on their store,
 * so they are recognised by class name and by their status-code methods, never linked against.
 */
private[fs] object StoreErrors {
  /** HTTP 412: a conditional request whose condition did not hold (the name was taken, or the object changed). */
  def isPreconditionFailed(e: Throwable): Boolean =
    causes(e).exists(c => c.getClass.getSimpleName == "RemoteFileChangedException" || status(c).contains(412))

  /** HTTP 409: another conditional write to the same name is still in flight. */
  def isConflict(e: Throwable): Boolean = causes(e).exists(c => status(c).contains(409))

  /** HTTP 501: the store does not implement a header the request sent (If-None-Match, on some S3-compatible stores). */
  def isNotImplemented(e: Throwable): Boolean = causes(e).exists(c => status(c).contains(501))

  private def causes(e: Throwable): Iterator[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20)

  // The AWS SDK's `statusCode()`, Google's and ABFS's `getStatusCode()`.
  private def status(e: Throwable): Option[Int] = Seq("statusCode", "getStatusCode").iterator.flatMap { name =>
    try Option(e.getClass.getMethod(name).invoke(e)).collect { case code: Integer => code.intValue }
    catch { case _: NoSuchMethodException => None }
  }.nextOption()
}
