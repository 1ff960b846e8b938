// paimon-spark: a Spark-native implementation of the Apache Paimon table format.
ThisBuild / scalaVersion := "2.13.18"
ThisBuild / organization := "io.github.paimonspark"
ThisBuild / version := "0.1.0-SNAPSHOT"

// Spark 4.3.0 is published on PyPI (pyspark) but not on Maven Central, so the provided classpath is
// the jars/ folder of the pyspark installed in .venv: exactly the jars the engine runs with.
// They are compile-time only and never packaged.
val pysparkJars: File = {
  val site = Option((file(".venv").getAbsoluteFile / "lib").listFiles()).toSeq.flatten.flatMap(d => Option(d / "site-packages" / "pyspark" / "jars"))
  site.find(_.isDirectory).getOrElse(sys.error("pyspark is not installed in .venv: run `make venv` first"))
}

// The flags spark-submit adds on Java 17; forked test JVMs that start Spark need them too.
val sparkJavaOptions = Seq(
  "java.base/java.lang", "java.base/java.lang.invoke", "java.base/java.lang.reflect",
  "java.base/java.io", "java.base/java.net", "java.base/java.nio", "java.base/java.util",
  "java.base/java.util.concurrent", "java.base/java.util.concurrent.atomic",
  "java.base/sun.nio.ch", "java.base/sun.nio.cs", "java.base/sun.security.action",
  "java.base/sun.util.calendar"
).map(p => s"--add-opens=$p=ALL-UNNAMED") ++ Seq("-Xmx2g", "-Djdk.reflect.useDirectMethodHandle=false")

lazy val engine = (project in file("engine-scala"))
  .settings(
    name := "paimon-spark",
    libraryDependencies ++= Seq(
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      // Apache Paimon's Java core, the reference implementation, as a test oracle only (never shipped):
      // interop suites read our tables with it and write tables for us to read. Intransitive: the few
      // libraries it declares (snappy, lz4, slf4j) come from pyspark's jars, in Spark's versions.
      ("org.apache.paimon" % "paimon-bundle" % "1.4.2" % Test).intransitive()
    ),
    Compile / unmanagedJars ++= (pysparkJars * "*.jar").classpath,
    Test / unmanagedJars ++= (pysparkJars * "*.jar").classpath,
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Wunused:imports"),
    javacOptions ++= Seq("--release", "17"),
    Compile / packageBin / artifactPath := (ThisBuild / baseDirectory).value / "target" / "paimon-spark.jar",
    Test / fork := true,
    Test / javaOptions ++= sparkJavaOptions,
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD",
      "-u", ((ThisBuild / baseDirectory).value / "test-reports" / "scala").getPath)
  )

lazy val root = (project in file("."))
  .aggregate(engine)
  .settings(publish / skip := true)
