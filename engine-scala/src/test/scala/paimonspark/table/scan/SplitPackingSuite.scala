package paimonspark.table.scan

import org.scalatest.funsuite.AnyFunSuite

class SplitPackingSuite extends AnyFunSuite {
  private val mb = 1L << 20
  private val packing = SplitPacking(targetSize = 128 * mb, openFileCost = 4 * mb, minTasks = 2)

  test("the split size is the target, lowered to spread a small read over the minimum tasks, never below the open cost") {
    assert(packing.splitSize(10000 * mb) == 128 * mb)
    assert(packing.splitSize(100 * mb) == 50 * mb)
    assert(packing.splitSize(1 * mb) == 4 * mb)
  }

  test("a piece weighs its bytes plus the open cost of each file it opens") {
    assert(packing.weight(10, 3) == 10 + 12 * mb)
  }

  test("pieces keep their order, and a task takes pieces up to the split size") {
    val pieces = Seq(30L, 30L, 30L, 50L, 10L, 90L).map(_ * mb)
    assert(packing.pack(pieces, identity[Long], 60 * mb).map(_.map(_ / mb)) ==
      Seq(Seq(30L, 30L), Seq(30L), Seq(50L, 10L), Seq(90L)))
  }

  test("a piece heavier than the split size gets a task of its own, and nothing is lost or repeated") {
    val pieces = Seq(1L, 500L, 2L, 3L)
    val tasks = packing.pack(pieces, identity[Long], 100L)
    assert(tasks == Seq(Seq(1L), Seq(500L), Seq(2L, 3L)))
    assert(packing.pack(Seq.empty[Long], identity[Long], 100L).isEmpty)
  }

  test("packAll sets the split size from the pieces' own total weight") {
    // 100 mb over 2 tasks: a 50 mb split size.
    val pieces = Seq(30L, 20L, 30L, 20L).map(_ * mb)
    assert(packing.packAll(pieces, identity[Long]) == packing.pack(pieces, identity[Long], 50 * mb))
    assert(packing.packAll(pieces, identity[Long]).size == 2)
  }

  test("the task count follows the weight: thousands of small pieces make a few tasks") {
    // 8,000 buckets of 5 KB each, as 2,000 daily partitions with 4 buckets leave them.
    val weights = Seq.fill(8000)(packing.weight(5 * 1024, 1))
    val size = packing.splitSize(weights.sum)
    val tasks = packing.pack(weights, identity[Long], size)
    // 31 pieces of 4 MB + 5 KB fit in 128 MB: next fit leaves a little of each task unused.
    assert(size == 128 * mb)
    assert(tasks.map(_.size).distinct.sorted == Seq(2, 31))
    assert(tasks.size == 259 && tasks.flatten.size == 8000)
  }
}
