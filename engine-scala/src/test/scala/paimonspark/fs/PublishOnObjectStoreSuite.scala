package paimonspark.fs

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import org.apache.hadoop.fs.Path
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.StorageException

/** `FileIO.publish` on a real S3 API (moto): conditional creates, lost responses, stores without them. */
class PublishOnObjectStoreSuite extends AnyFunSuite with BeforeAndAfterAll {
  private var moto: MotoServer = _

  override def beforeAll(): Unit = moto = MotoServer.start()
  override def afterAll(): Unit = if (moto != null) moto.stop()

  // S3A filesystems are cached per bucket: each test takes its own bucket, so its settings apply.
  private def io(bucket: String, settings: (String, String)*): FileIO = {
    moto.createBucket(bucket)
    new FileIO(new HadoopConf(moto.s3aConf(settings: _*)))
  }

  test("S3A declares conditional creates, and the first writer of a name wins it") {
    val fileIO = io("publish-first")
    val target = new Path("s3a://publish-first/t/snapshot/snapshot-1")
    assert(fileIO.isObjectStore(target))
    assert(fileIO.publish(target, "a".getBytes(UTF_8)))
    assert(!fileIO.publish(target, "b".getBytes(UTF_8)))
    assert(fileIO.readUtf8(target) == "a")
  }

  test("a create that landed but whose answer was lost is recognised as the writer's own when it is retried") {
    val fileIO = io("publish-lost")
    val target = new Path("s3a://publish-lost/t/snapshot/snapshot-1")
    val mine = """{"commitUser":"me","commitIdentifier":7}""".getBytes(UTF_8)
    assert(fileIO.publish(target, mine))
    // The retry of the same request: the store answers 412, and the file holds our own bytes.
    assert(fileIO.publish(target, mine))
    assert(!fileIO.publish(target, """{"commitUser":"other","commitIdentifier":7}""".getBytes(UTF_8)))
  }

  test("a 409 (another conditional write to the name in flight) is retried until the create lands, or fails loudly") {
    val fileIO = io("publish-conflict")
    moto.answerConditionalPuts("publish-conflict", "t/snapshot/snapshot-1", 409, 3)
    assert(fileIO.publish(new Path("s3a://publish-conflict/t/snapshot/snapshot-1"), "a".getBytes(UTF_8)))
    assert(moto.conditionalPutAnswersLeft("publish-conflict", "t/snapshot/snapshot-1") == 0)
    assert(fileIO.readUtf8(new Path("s3a://publish-conflict/t/snapshot/snapshot-1")) == "a")
    // A name that stays in conflict is an error, never a lost race: the commit must not count itself beaten.
    moto.answerConditionalPuts("publish-conflict", "t/snapshot/snapshot-2", 409, 1000)
    intercept[java.io.IOException](fileIO.publish(new Path("s3a://publish-conflict/t/snapshot/snapshot-2"), "b".getBytes(UTF_8)))
    assert(!fileIO.exists(new Path("s3a://publish-conflict/t/snapshot/snapshot-2")))
  }

  test("a store that refuses If-None-Match (501) is a StorageException naming the options, and nothing is written") {
    val fileIO = io("publish-refused")
    moto.answerConditionalPuts("publish-refused", "", 501, 1000)
    val target = new Path("s3a://publish-refused/t/schema/schema-0")
    val e = intercept[StorageException](fileIO.publish(target, "{}".getBytes(UTF_8)))
    assert(e.getMessage.contains("s3a://publish-refused/t/schema/schema-0") &&
      e.getMessage.contains("fs.s3a.create.conditional.enabled") && e.getMessage.contains(PublishMethod.SingleWriterOption))
    assert(!fileIO.exists(target))
  }

  test("eight writers racing for each of twenty names: exactly one wins each") {
    val fileIO = io("publish-race")
    val pool = Executors.newFixedThreadPool(8)
    try {
      (1 to 20).foreach { round =>
        val target = new Path(s"s3a://publish-race/t/snapshot/snapshot-$round")
        val start = new CountDownLatch(1)
        val attempts = (1 to 8).map { writer =>
          pool.submit(() => { start.await(); fileIO.publish(target, s"writer $writer".getBytes(UTF_8)) })
        }
        start.countDown()
        val won = attempts.map(_.get(60, TimeUnit.SECONDS)).zipWithIndex.collect { case (true, i) => s"writer ${i + 1}" }
        assert(won.size == 1, s"round $round: winners $won")
        assert(fileIO.readUtf8(target) == won.head)
      }
    } finally pool.shutdownNow()
  }

  test("a store without conditional writes is refused, naming the options, unless one writer is promised") {
    val fileIO = io("publish-plain", "fs.s3a.create.conditional.enabled" -> "false")
    val target = new Path("s3a://publish-plain/t/snapshot/snapshot-1")
    val error = intercept[StorageException](fileIO.checkPublishable(target))
    assert(error.getMessage.contains("fs.s3a.create.conditional.enabled") &&
      error.getMessage.contains(PublishMethod.SingleWriterOption) && error.value == target.toString)
    intercept[StorageException](fileIO.publish(target, "a".getBytes(UTF_8)))
    assert(!fileIO.exists(target))
    val single = fileIO.assumingSingleWriter
    assert(single.publish(target, "a".getBytes(UTF_8)) && !single.publish(target, "b".getBytes(UTF_8)))
  }

  test("overwrite replaces a file whole with one PUT, leaving no temporary file") {
    val fileIO = io("publish-overwrite")
    val target = new Path("s3a://publish-overwrite/t/consumer/consumer-a")
    fileIO.overwrite(target, "1".getBytes(UTF_8))
    fileIO.overwrite(target, "2".getBytes(UTF_8))
    assert(fileIO.readUtf8(target) == "2")
    assert(fileIO.list(target.getParent).map(_.getPath.getName) == Seq("consumer-a"))
  }
}
