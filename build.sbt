// paimon-spark: a Spark-native implementation of the Apache Paimon table format.
ThisBuild / scalaVersion := "2.13.18"
ThisBuild / organization := "io.github.paimonspark"
// The one place the version is written: the Python package's, so that the wheel and the jar agree.
ThisBuild / version := {
  val source = IO.read(file("python/paimon_spark/version.py"))
  """__version__ = "([^"]+)"""".r.findFirstMatchIn(source).map(_.group(1))
    .getOrElse(sys.error("python/paimon_spark/version.py has no __version__ = \"...\" line"))
}

// `make test` starts its pytest workers when this file appears, while the same sbt goes on to the Scala suites.
commands += Command.command("announceJar") { state => IO.touch(file(".jar-ready")); state }

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

// What the published POM declares besides the engine itself: the runtime every Spark installation
// already has, all `provided`, so that `--packages` fetches the engine jar and nothing else. Spark is
// not on Maven Central in 4.3.0, so these are POM entries only, never resolved by this build.
val providedByRuntime = Seq(
  "org.apache.spark" -> "spark-sql_2.13" -> "4.3.0",
  "org.apache.hadoop" -> "hadoop-client-api" -> "3.5.0")

/** The POM as sbt writes it, with test dependencies dropped and the runtime's added as `provided`. */
def publishedPom(pom: scala.xml.Node): scala.xml.Node = {
  import scala.xml._
  import scala.xml.transform.{RewriteRule, RuleTransformer}
  val runtime = providedByRuntime.map { case ((group, artifact), version) =>
    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version><scope>provided</scope></dependency>
  }
  new RuleTransformer(new RewriteRule {
    override def transform(node: Node): Seq[Node] = node match {
      case e: Elem if e.label == "dependencies" =>
        e.copy(child = e.child.filterNot(d => (d \ "scope").text == "test") ++ runtime)
      case other => other
    }
  }).transform(pom).head
}

// S3A for the object-store suites (against a local moto server): the jars configure_spark_with_paimon's
// s3=True resolves, without the SDK bundle and without what pyspark's jars already hold.
val s3aForTests = {
  val sparkHas = Seq(ExclusionRule("io.netty"), ExclusionRule("org.apache.httpcomponents"), ExclusionRule("org.slf4j"),
    ExclusionRule("commons-codec", "commons-codec"), ExclusionRule("commons-logging", "commons-logging"),
    ExclusionRule("software.amazon.awssdk", "bundle"), ExclusionRule("org.apache.hadoop", "hadoop-common"))
  Seq(
    "org.apache.hadoop" % "hadoop-aws" % "3.5.0",
    "software.amazon.awssdk" % "s3" % "2.35.4",
    "software.amazon.awssdk" % "s3-transfer-manager" % "2.35.4",
    "software.amazon.awssdk" % "sts" % "2.35.4",
    "software.amazon.s3.analyticsaccelerator" % "analyticsaccelerator-s3" % "1.3.1"
  ).map(m => (m % Test).excludeAll(sparkHas: _*))
}

// Iceberg's own Java library, as Paimon tests its Iceberg metadata (paimon-iceberg's version): reads the tables'
// Iceberg metadata with their deletion vectors, which pyiceberg cannot, and through a Hive Metastore. Avro,
// Parquet, Jackson, RoaringBitmap, ORC, Hadoop and Hive are pyspark's; parquet-avro, which Spark lacks, in
// Spark's Parquet version.
val icebergForTests = {
  val sparkHas = Seq("org.apache.avro", "org.apache.parquet", "com.fasterxml.jackson.core", "org.roaringbitmap",
    "org.apache.orc", "org.slf4j", "org.apache.hadoop", "org.apache.hive").map(ExclusionRule(_))
  Seq("iceberg-core", "iceberg-data", "iceberg-parquet", "iceberg-hive-metastore").map(a => ("org.apache.iceberg" % a % "1.8.1" % Test)
    .excludeAll(sparkHas: _*)) :+ ("org.apache.parquet" % "parquet-avro" % "1.17.0" % Test).intransitive()
}

lazy val engine = (project in file("engine-scala"))
  .settings(
    name := "paimon-spark",
    description := "Apache Paimon tables in Spark 4.3, with a Spark-native engine",
    pomExtra := <licenses><license><name>Apache-2.0</name><distribution>repo</distribution></license></licenses>,
    // Scala's library is Spark's too: provided, like Spark itself.
    autoScalaLibrary := false,
    libraryDependencies ++= Seq(
      "org.scala-lang" % "scala-library" % scalaVersion.value % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      // Apache Paimon's Java core, the reference implementation, as a test oracle only (never shipped):
      // interop suites read our tables with it and write tables for us to read. Intransitive: the few
      // libraries it declares (snappy, lz4, slf4j) come from pyspark's jars, in Spark's versions.
      ("org.apache.paimon" % "paimon-bundle" % "1.4.2" % Test).intransitive(),
      // Its S3 file I/O (hadoop-aws and the AWS SDK shaded inside), for the object-store interop suite.
      ("org.apache.paimon" % "paimon-s3" % "1.4.2" % Test).intransitive(),
      // A real single-node HDFS for HdfsSuite: Hadoop's own name node and data node, shaded to sit beside
      // the hadoop-client-api and -runtime jars pyspark ships.
      ("org.apache.hadoop" % "hadoop-client-minicluster" % "3.5.0" % Test).intransitive(),
      // Google's GCS connector (shaded: its Google libraries inside) and Hadoop's ABFS, as sessions load them
      // (python/paimon_spark/jar_sets.py), for the suites against fake-gcs-server and Azurite.
      ("com.google.cloud.bigdataoss" % "gcs-connector" % "3.1.3" % Test).classifier("shaded").intransitive(),
      ("org.apache.hadoop" % "hadoop-azure" % "3.5.0" % Test).intransitive(),
      // The JDBC catalog's drivers, as users add them: SQLite (an embedded file) and PostgreSQL.
      "org.xerial" % "sqlite-jdbc" % "3.51.1.0" % Test,
      // `make profile`'s CPU sampler (bench/cpu_profile.py): its jar carries the native agent for each platform.
      ("tools.profiler" % "async-profiler" % "4.6" % Test).intransitive(),
      "org.postgresql" % "postgresql" % "42.7.8" % Test
    ) ++ s3aForTests ++ icebergForTests,
    Compile / unmanagedJars ++= (pysparkJars * "*.jar").classpath,
    Test / unmanagedJars ++= (pysparkJars * "*.jar").classpath,
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-Wunused:imports"),
    javacOptions ++= Seq("--release", "17"),
    Compile / packageBin / artifactPath := (ThisBuild / baseDirectory).value / "target" / "paimon-spark.jar",
    // Published to the local Maven repository (publishM2) for `spark-submit --packages`: the jar,
    // its sources and the POM; scaladoc is left out, it costs a minute and nobody resolves it.
    Compile / packageDoc / publishArtifact := false,
    pomIncludeRepository := (_ => false),
    // The local repository is a developer's: publishing the same version again replaces it.
    publishM2Configuration := publishM2Configuration.value.withOverwrite(true),
    // `make test` publishes the same files into the checkout's own repository (engine/publish), where the
    // suites that resolve the engine with --packages find it: never the user's ~/.m2, which Java finds by
    // the account's home directory whatever HOME says.
    publishTo := Some(MavenCache("checkout", (ThisBuild / baseDirectory).value / "target" / "maven-repository")),
    publishConfiguration := publishConfiguration.value.withOverwrite(true),
    pomPostProcess := publishedPom,
    Test / fork := true,
    // The test JVM runs hundreds of short, different jobs (ours, Java's core, Spark's generated code): the
    // optimizing compiler does not earn back its CPU on 2 cores. The client compiler and the serial collector
    // cut two interop suites from 144 to 101 CPU seconds, and their wall time too.
    Test / javaOptions ++= sparkJavaOptions ++ Seq("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD",
      "-u", ((ThisBuild / baseDirectory).value / "test-reports" / "scala").getPath)
  )

// Test oracles that run in JVMs of their own: projects apart, so that nothing else resolves them or has them
// on a classpath; `writeClasspath` lists each one's jars in target/<file> for the tests that start them.
val writeClasspath = taskKey[File]("writes the project's runtime classpath to target/<project>.classpath")

def oracle(id: String, classpathFile: String, dependencies: Seq[ModuleID]): Project =
  Project(id, file(s"target/$id-project"))
  .settings(
    autoScalaLibrary := false,
    crossPaths := false,
    publish / skip := true,
    libraryDependencies ++= dependencies,
    writeClasspath := {
      val jars = (Runtime / fullClasspath).value.map(_.data).filter(_.getName.endsWith(".jar"))
      val out = (ThisBuild / baseDirectory).value / "target" / classpathFile
      IO.write(out, jars.map(_.getAbsolutePath).mkString(java.io.File.pathSeparator))
      out
    })

// Apache Flink 2.0.0 with Apache Paimon's Flink connector: reads and writes our tables (tests/support/FlinkSql.java).
lazy val flinkOracle = oracle("flinkOracle", "flink-oracle.classpath",
  Seq("flink-table-api-java-bridge", "flink-table-planner-loader", "flink-table-runtime",
    "flink-clients", "flink-connector-files", "flink-connector-datagen").map("org.apache.flink" % _ % "2.0.0") ++ Seq(
    // Shaded: Paimon's core, formats and connector inside; its declared dependencies are all inside too.
    ("org.apache.paimon" % "paimon-flink-2.0" % "1.4.2").intransitive(),
    ("org.slf4j" % "slf4j-simple" % "1.7.36").intransitive(),
    // Paimon's catalog loads Hadoop's Configuration; Flink ships no Hadoop.
    ("org.apache.hadoop" % "hadoop-client-api" % "3.3.6").intransitive(),
    ("org.apache.hadoop" % "hadoop-client-runtime" % "3.3.6").intransitive()))

// Apache Paimon's own REST catalog server, from paimon-core's test jar (tests/support/LoopbackRestCatalog.java),
// with the bundle's classes it runs on; Hadoop, slf4j and log4j come from pyspark's jars. Intransitive: the
// paimon-common that paimon-core declares is inside the bundle.
lazy val restOracle = oracle("restOracle", "rest-oracle.classpath", Seq(
  ("org.apache.paimon" % "paimon-bundle" % "1.4.2").intransitive(),
  ("org.apache.paimon" % "paimon-core" % "1.4.2" classifier "tests").intransitive(),
  "com.squareup.okhttp3" % "mockwebserver" % "4.12.0"))

// A real HDFS for the pytest suites (tests/support/HdfsServer.java), as HdfsSuite runs one in its own JVM.
lazy val hdfsOracle = oracle("hdfsOracle", "hdfs-oracle.classpath", Seq(
  ("org.apache.hadoop" % "hadoop-client-minicluster" % "3.5.0").intransitive()))

lazy val root = (project in file("."))
  .aggregate(engine)
  .settings(publish / skip := true)
