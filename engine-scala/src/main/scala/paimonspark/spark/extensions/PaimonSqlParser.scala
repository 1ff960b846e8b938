package paimonspark.spark.extensions

import java.time.Duration

import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParserInterface, SqlStatementSplitResult}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * Paimon's SQL extensions to Spark's grammar: its tag statements, parsed here; every other statement
 * goes to Spark's parser unchanged, as does one that only starts like a tag statement (Spark then
 * says where it does not parse).
 * {{{
 *   SHOW TAGS t
 *   ALTER TABLE t CREATE TAG [IF NOT EXISTS] name [AS OF VERSION n] [RETAIN n DAYS|HOURS|MINUTES]
 *   ALTER TABLE t [CREATE OR] REPLACE TAG name [AS OF VERSION n] [RETAIN n DAYS|HOURS|MINUTES]
 *   ALTER TABLE t DELETE TAG [IF EXISTS] name[, name...]
 *   ALTER TABLE t RENAME TAG name TO name
 * }}}
 */
final class PaimonSqlParser(delegate: ParserInterface) extends ParserInterface {
  override def parsePlan(sqlText: String): LogicalPlan = PaimonSqlParser.tagStatement(sqlText).getOrElse(delegate.parsePlan(sqlText))
  override def parsePlanWithParameters(sqlText: String, context: ParameterContext): LogicalPlan =
    PaimonSqlParser.tagStatement(sqlText).getOrElse(delegate.parsePlanWithParameters(sqlText, context))
  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)
  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier = delegate.parseFunctionIdentifier(sqlText)
  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)
  override def parseQuery(sqlText: String): LogicalPlan = delegate.parseQuery(sqlText)
  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  override def splitStatements(sqlText: String): SqlStatementSplitResult = delegate.splitStatements(sqlText)
  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}

object PaimonSqlParser {
  private val Token = """`(?:[^`]|``)*`|[A-Za-z0-9_$]+|[^\sA-Za-z0-9_$]""".r

  /** The tag statement `sql` is, if it is one. */
  def tagStatement(sql: String): Option[LogicalPlan] = {
    val tokens = Token.findAllIn(sql.trim.stripSuffix(";")).toIndexedSeq
    if (tokens.isEmpty) None else new Statement(tokens).parse()
  }

  /** A cursor over a statement's tokens; any mismatch gives None (not a tag statement). */
  private final class Statement(tokens: IndexedSeq[String]) {
    private var at = 0

    private def peek(word: String, ahead: Int = 0): Boolean = tokens.lift(at + ahead).exists(_.equalsIgnoreCase(word))
    private def accept(words: String*): Boolean =
      if (words.indices.forall(i => peek(words(i), i))) { at += words.size; true } else false
    private def expect(words: String*): Unit = if (!accept(words: _*)) throw Mismatch
    private def done: Boolean = at == tokens.size

    private def name(): String = tokens.lift(at) match {
      case Some(t) if t.startsWith("`") => at += 1; t.substring(1, t.length - 1).replace("``", "`")
      case Some(t) if t.head.isLetterOrDigit || t.head == '_' => at += 1; t
      case _ => throw Mismatch
    }
    private def multipart(): Seq[String] = name() +: Iterator.continually(()).takeWhile(_ => accept(".")).map(_ => name()).toSeq
    private def number(): Long = tokens.lift(at).flatMap(_.toLongOption) match {
      case Some(n) => at += 1; n
      case None => throw Mismatch
    }

    def parse(): Option[LogicalPlan] = try {
      val plan =
        if (accept("SHOW", "TAGS")) ShowTags(multipart())
        else {
          expect("ALTER", "TABLE")
          val table = multipart()
          if (accept("CREATE", "TAG")) {
            val ifNotExists = accept("IF", "NOT", "EXISTS")
            val tag = name()
            val (version, retain) = tagOptions()
            CreateTag(table, tag, version, retain, replace = false, ifNotExists = ifNotExists)
          } else if (accept("CREATE", "OR", "REPLACE", "TAG") || accept("REPLACE", "TAG")) {
            val tag = name()
            val (version, retain) = tagOptions()
            CreateTag(table, tag, version, retain, replace = true, ifNotExists = false)
          } else if (accept("DELETE", "TAG")) {
            val ifExists = accept("IF", "EXISTS")
            DeleteTag(table, (name() +: Iterator.continually(()).takeWhile(_ => accept(",")).map(_ => name()).toSeq)
              .flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty), ifExists)
          } else if (accept("RENAME", "TAG")) {
            val from = name()
            expect("TO")
            RenameTag(table, from, name())
          } else throw Mismatch
        }
      if (done) Some(plan) else None
    } catch { case Mismatch => None }

    private def tagOptions(): (Option[Long], Option[Duration]) = {
      val version = if (accept("AS", "OF", "VERSION")) Some(number()) else None
      val retain = if (accept("RETAIN")) {
        val n = number()
        Some(if (accept("DAYS")) Duration.ofDays(n) else if (accept("HOURS")) Duration.ofHours(n)
          else { expect("MINUTES"); Duration.ofMinutes(n) })
      } else None
      (version, retain)
    }
  }

  private object Mismatch extends Exception(null, null, false, false)
}
