package paimonspark.fs

import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import org.apache.hadoop.fs.Path
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.StorageException

/**
 * `FileIO.publish` by a plain exclusive create, on Google Cloud Storage (gcs-connector 3.1.3 against
 * fake-gcs-server) and on Azure Blob storage (ABFS 3.5.0 against Azurite): racing writers, a retried
 * create, and ABFS's settings without which its creates are not exclusive.
 */
class PublishOnGcsAndAzureSuite extends AnyFunSuite with BeforeAndAfterAll {
  private var gcs: FakeGcs = _
  private var azure: Azurite = _

  override def beforeAll(): Unit = {
    gcs = FakeGcs.start()
    azure = Azurite.start()
  }

  override def afterAll(): Unit = Seq(Option(gcs), Option(azure)).flatten.foreach(_.stop())

  private def stores = Seq(gcs, azure)

  // Each test its own directory: the connectors cache one filesystem per bucket, with the settings of its first use.
  private def io(store: StoreEmulator) = new FileIO(new HadoopConf(store.conf()))

  test("eight writers racing for each of ten names: exactly one wins each, on both stores") {
    val pool = Executors.newFixedThreadPool(8)
    try stores.foreach { store =>
      val fileIO = io(store)
      (1 to 10).foreach { round =>
        val target = new Path(store.uri(s"race/snapshot/snapshot-$round"))
        val start = new CountDownLatch(1)
        val attempts = (1 to 8).map { writer =>
          pool.submit(() => { start.await(); fileIO.publish(target, s"writer $writer".getBytes(UTF_8)) })
        }
        start.countDown()
        val won = attempts.map(_.get(60, TimeUnit.SECONDS)).zipWithIndex.collect { case (true, i) => s"writer ${i + 1}" }
        assert(won.size == 1, s"${store.uri("")} round $round: winners $won")
        assert(fileIO.readUtf8(target) == won.head)
      }
      assert(fileIO.list(new Path(store.uri("race/snapshot"))).map(_.getPath.getName).sorted ==
        (1 to 10).map(i => s"snapshot-$i").sorted, "no temporary files either")
    } finally pool.shutdownNow()
  }

  test("a create retried after its answer was lost is the writer's own; another writer's is not") {
    stores.foreach { store =>
      val fileIO = io(store)
      val target = new Path(store.uri("retry/snapshot/snapshot-1"))
      val mine = """{"commitUser":"me","commitIdentifier":7}""".getBytes(UTF_8)
      assert(fileIO.publish(target, mine) && fileIO.publish(target, mine))
      assert(!fileIO.publish(target, """{"commitUser":"other","commitIdentifier":7}""".getBytes(UTF_8)))
    }
  }

  test("ABFS without the settings that make its creates exclusive is refused, naming them, unless one writer is promised") {
    val conf = azure.conf("fs.azure.enable.create.blob.idempotency" -> "true")
    // A filesystem of its own, not the cached one with the suite's settings.
    conf.setBoolean("fs.abfs.impl.disable.cache", true)
    val fileIO = new FileIO(new HadoopConf(conf))
    val target = new Path(azure.uri("idempotent/snapshot/snapshot-1"))
    val error = intercept[StorageException](fileIO.checkPublishable(target))
    assert(error.getMessage.contains("fs.azure.enable.create.blob.idempotency is true") &&
      error.getMessage.contains(PublishMethod.SingleWriterOption) && error.value == target.toString, error.getMessage)
    intercept[StorageException](fileIO.publish(target, "a".getBytes(UTF_8)))
    assert(!fileIO.exists(target))
    assert(fileIO.assumingSingleWriter.publish(target, "a".getBytes(UTF_8)))
  }

  test("an empty published file (a writer stopped between create and close, on Azure) is absent to readers, and named") {
    val fileIO = io(azure)
    val target = new Path(azure.uri("stopped/snapshot/snapshot-2"))
    fileIO.writeBytes(target, Array.emptyByteArray)
    assert(fileIO.exists(target) && !fileIO.existsPublished(target))
    val error = intercept[StorageException](fileIO.publish(target, "b".getBytes(UTF_8)))
    assert(error.getMessage.contains(s"$target is empty") && error.getMessage.contains("remove_orphan_files"))
  }
}
