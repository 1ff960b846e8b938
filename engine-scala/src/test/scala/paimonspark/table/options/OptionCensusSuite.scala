package paimonspark.table.options

import java.lang.reflect.Modifier

import scala.jdk.CollectionConverters._

import org.apache.paimon.CoreOptions
import org.apache.paimon.options.{ConfigOption, MemorySize => PaimonMemorySize}
import org.scalatest.funsuite.AnyFunSuite

import paimonspark.{InvalidOptionException, UnsupportedFeatureException}
import paimonspark.format.{DataField, DataTypes, TablePaths}
import paimonspark.format.metadata.TableSchema
import paimonspark.fs.{FileIO, HadoopConf}
import paimonspark.table.{FileStoreTable, TableFeatures, TableOptions}

/**
 * Holds [[PaimonOptions]] against the `CoreOptions` that Apache Paimon 1.4.2's Java core declares:
 * every option is listed, with Paimon's fallback keys, the kind of its value and its default, and
 * every option is implemented (checked on CREATE, default as Paimon's), without effect here for a
 * stated reason, or refused with a typed error on CREATE and ALTER.
 */
class OptionCensusSuite extends AnyFunSuite {
  // CoreOptions, and the IcebergOptions a table takes beside them.
  private val declared: Seq[ConfigOption[_]] = Seq(classOf[CoreOptions], classOf[org.apache.paimon.iceberg.IcebergOptions])
    .flatMap(_.getFields.toSeq)
    .filter(f => Modifier.isStatic(f.getModifiers) && f.getType == classOf[ConfigOption[_]])
    .map(_.get(null).asInstanceOf[ConfigOption[_]])

  private val clazz = {
    val m = classOf[ConfigOption[_]].getDeclaredMethod("getClazz")
    m.setAccessible(true)
    (o: ConfigOption[_]) => m.invoke(o).asInstanceOf[Class[_]]
  }

  /** Keys Paimon declares as patterns, with `#` for a name: the lists take them as families of keys. */
  private def concrete(key: String): String = key.replace("#", "org.example.Callback")

  /** Options of Paimon's Spark connector and of this engine: every other listed key is a CoreOption. */
  private val notCoreOptions = Set("write.merge-schema", "write.merge-schema.explicit-cast", "read.changelog",
    "read.stream.maxFilesPerTrigger", "read.stream.maxBytesPerTrigger", "read.stream.maxRowsPerTrigger",
    "read.stream.minRowsPerTrigger", "read.stream.maxTriggerDelayMs", "owner", "compaction.small-file-ratio",
    "commit.object-store.single-writer", "orc.timestamp-ltz.legacy.type")

  /** A Paimon default in the canonical text of our value kinds. */
  private def paimonDefault(o: ConfigOption[_], kind: OptionKind): Option[String] = Option(o.defaultValue()).map {
    case d: java.time.Duration => d.toMillis.toString
    case m: PaimonMemorySize => m.getBytes.toString
    case m: java.util.Map[_, _] => m.asScala.map { case (k, v) => s"$k:$v" }.toSeq.sorted.mkString(",")
    case e: java.lang.Enum[_] => e.toString.toLowerCase
    case other => kind.canonical(o.key(), other.toString)
  }

  test("Paimon 1.4.2 declares about 280 core options, and every one is listed") {
    assert(declared.size > 250, s"only ${declared.size} options found by reflection")
    val missing = declared.map(o => concrete(o.key())).filter(PaimonOptions.get(_).isEmpty)
    assert(missing.isEmpty, s"options of Paimon's CoreOptions not listed: ${missing.mkString(", ")}")
    val core = declared.map(_.key()).toSet
    val extra = PaimonOptions.All.map(_.key).filterNot(core).toSet -- notCoreOptions
    assert(extra.isEmpty, s"listed as Paimon options but not in CoreOptions: ${extra.mkString(", ")}")
  }

  test("fallback keys are Paimon's, and name their option") {
    declared.foreach { o =>
      val fallbacks = o.fallbackKeys().asScala.map(_.getKey).toSet
        .filterNot(k => declared.exists(_.key() == k)) // a fallback that is another option's key stays that option
      PaimonOptions.get(o.key()).foreach { listed =>
        assert(listed.aliases.toSet == fallbacks, s"fallback keys of '${o.key()}'")
        fallbacks.foreach(k => assert(PaimonOptions.get(k).map(_.key).contains(o.key()), k))
      }
    }
  }

  test("value kinds are Paimon's, enum values included") {
    declared.filterNot(_.key().contains("#")).foreach { o =>
      val listed = PaimonOptions.get(o.key()).get
      val paimonClass = clazz(o)
      val expected = if (paimonClass.isEnum) "enum" else paimonClass.getSimpleName
      listed.kind match {
        case OptionKind.OneOf(_, values) =>
          assert(paimonClass.isEnum, s"'${o.key()}' is a ${paimonClass.getSimpleName} in Paimon")
          assert(values.map(_.toLowerCase).toSet == paimonClass.getEnumConstants.map(_.toString.toLowerCase).toSet,
            s"values of '${o.key()}'")
        case kind => assert(kind.name == expected, s"kind of '${o.key()}'")
      }
    }
  }

  test("defaults are Paimon's") {
    declared.filterNot(_.key().contains("#")).foreach { o =>
      val listed = PaimonOptions.get(o.key()).get
      val ours = listed.default.map(listed.kind.canonical(o.key(), _))
      assert(ours == paimonDefault(o, listed.kind), s"default of '${o.key()}'")
    }
  }

  /** A well-formed value other than the default. */
  private def otherValue(o: PaimonOption): String = o.kind match {
    case OptionKind.Bool => if (o.default.contains("true")) "false" else "true"
    case OptionKind.OneOf(_, values) => values.find(v => !o.default.exists(_.equalsIgnoreCase(v))).get
    case _: OptionKind.IntIn | OptionKind.LongValue => if (o.default.contains("7")) "8" else "7"
    case _: OptionKind.Fraction => "0.5"
    case OptionKind.Memory => "3 mb"
    case OptionKind.Time => "3 h"
    case OptionKind.LevelMap => "0:avro"
    case OptionKind.Text => "a,b"
  }

  test("refused options are refused on CREATE and ALTER with a typed error naming them; their default is accepted") {
    val refused = PaimonOptions.All.filter(o => o.scope.table && o.support.isInstanceOf[Support.Refused])
    assert(refused.size > 50)
    refused.foreach { o =>
      val e = intercept[UnsupportedFeatureException](TableOptions.validate(Map(o.key -> otherValue(o))))
      assert(e.value == o.key && e.getMessage.contains(o.key), o.key)
      o.support match {
        case Support.Refused(_, true) => TableOptions.validate(Map(o.key -> o.default.get))
        case _ => ()
      }
    }
  }

  test("implemented and no-effect options take their default and other well-formed values, and refuse malformed ones") {
    val accepted = PaimonOptions.All.filter(o => o.scope.table && !o.support.isInstanceOf[Support.Refused])
    accepted.foreach { o =>
      o.default.foreach(d => TableOptions.validate(Map(o.key -> d)))
      if (o.kind != OptionKind.Text) {
        val e = intercept[InvalidOptionException](TableOptions.validate(Map(o.key -> "not-a-value")))
        assert(e.option == o.key)
      }
    }
  }

  test("a table another engine gave a refused value is refused exactly the access the value would change") {
    val location = new org.apache.hadoop.fs.Path(java.nio.file.Files.createTempDirectory("census").toUri)
    val io = new FileIO(new HadoopConf(new org.apache.hadoop.conf.Configuration()))
    def table(options: Map[String, String]) = new FileStoreTable(io, new TablePaths(location),
      TableSchema(0, Seq(DataField(0, "a", DataTypes.int)), 0, Nil, Nil, options, None, 0L))
    PaimonOptions.All.filter(o => o.scope.table && o.support.isInstanceOf[Support.Refused]).foreach { o =>
      val carrying = table(Map(o.key -> otherValue(o)))
      Seq(Access.Read, Access.Write).foreach { access =>
        if (o.blocks(access)) {
          val e = intercept[UnsupportedFeatureException](TableFeatures.requireSchema(carrying, access))
          assert(e.value == o.key && e.getMessage.contains(location.toString), s"${o.key} on $access")
        } else TableFeatures.requireSchema(carrying, access)
      }
    }
    // Read options stored on a table would change every read: refused for reads, not writes.
    val e = intercept[UnsupportedFeatureException](TableFeatures.requireSchema(table(Map("scan.tag-name" -> "t")), Access.Read))
    assert(e.value == "scan.tag-name")
    TableFeatures.requireSchema(table(Map("scan.tag-name" -> "t")), Access.Write)
  }

  test("a read option is refused as a table option, and a table option as a read option") {
    intercept[InvalidOptionException](TableOptions.validate(Map("scan.mode" -> "latest")))
    val e = intercept[UnsupportedFeatureException](DynamicOptions.checkRead("t", Map("bucket" -> "4")))
    assert(e.value == "bucket")
    intercept[InvalidOptionException](DynamicOptions.checkRead("t", Map("scan.mdoe" -> "latest")))
    intercept[InvalidOptionException](DynamicOptions.checkRead("t", Map("scan.mode" -> "bogus")))
    intercept[InvalidOptionException](DynamicOptions.checkWrite("t", Map("write.merge-shema" -> "true")))
    // Spark's own and other tools' options are theirs.
    DynamicOptions.checkRead("t", Map("path" -> "/x", "versionAsOf" -> "1", "mergeSchema" -> "true"))
    DynamicOptions.checkWrite("t", Map("checkpointLocation" -> "/c", "write.merge-schema" -> "true"))
  }
}
