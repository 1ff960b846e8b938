package paimonspark.catalog.rest

import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}

/** A REST catalog's options are checked when it starts, each error naming the option to set; no server is asked. */
class RestSettingsSuite extends AnyFunSuite {
  private val good = Map("uri" -> "http://127.0.0.1:1/", "warehouse" -> "w", "token.provider" -> "bear", "token" -> "secret",
    "header.X-Team" -> "lake")

  test("Paimon's options are taken, headers by their names, and the token is kept out of toString") {
    val settings = RestSettings("c", good)
    assert(settings.uri == "http://127.0.0.1:1" && settings.warehouse == "w" && settings.token == "secret")
    assert(settings.headers == Map("X-Team" -> "lake") && !settings.toString.contains("secret"))
  }

  test("a missing or wrong option is refused naming it; dlf is refused as not built") {
    Seq("uri", "warehouse", "token.provider", "token").foreach { key =>
      val e = intercept[InvalidOptionException](RestSettings("c", good - key))
      assert(e.option == s"spark.sql.catalog.c.$key", e.getMessage)
    }
    assert(intercept[InvalidOptionException](RestSettings("c", good + ("uri" -> "thrift://h:1"))).option ==
      "spark.sql.catalog.c.uri")
    assert(intercept[InvalidOptionException](RestSettings("c", good + ("token.provider" -> "basic"))).getMessage
      .contains("must be bear"))
    val dlf = intercept[UnsupportedFeatureException](RestSettings("c", good + ("token.provider" -> "dlf")))
    assert(dlf.value == "token.provider" && !dlf.getMessage.contains("secret"))
  }
}
