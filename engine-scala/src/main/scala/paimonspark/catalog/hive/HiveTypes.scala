package paimonspark.catalog.hive

import paimonspark.format.{ArrayType, AtomicType, DataType, MapType, MultisetType, RowType, TypeRoot}

/**
 * The Hive column types a metastore records for Paimon's types, as Paimon's `HiveTypeUtils` writes
 * them for a Hive 2.3 metastore. Only a copy for other engines: the schema files say what a column is.
 */
object HiveTypes {
  private val MaxChar = 255
  private val MaxVarchar = 65535

  def of(t: DataType): String = t match {
    case a: AtomicType => atomic(a)
    case a: ArrayType => s"array<${of(a.element)}>"
    case m: MapType => s"map<${of(m.key)},${of(m.value)}>"
    case m: MultisetType => s"map<${of(m.element)},int>"
    case r: RowType => r.fields.map(f => s"${f.name}:${of(f.dataType)}").mkString("struct<", ",", ">")
  }

  private def atomic(t: AtomicType): String = t.root match {
    case TypeRoot.Boolean => "boolean"
    case TypeRoot.TinyInt => "tinyint"
    case TypeRoot.SmallInt => "smallint"
    case TypeRoot.Int => "int"
    case TypeRoot.BigInt => "bigint"
    case TypeRoot.Float => "float"
    case TypeRoot.Double => "double"
    case TypeRoot.Date => "date"
    case TypeRoot.Decimal => s"decimal(${t.precision},${t.scale})"
    case TypeRoot.Char => if (t.precision > MaxChar) "string" else s"char(${t.precision})"
    case TypeRoot.VarChar => if (t.precision > MaxVarchar) "string" else s"varchar(${t.precision})"
    case TypeRoot.Binary | TypeRoot.VarBinary => "binary"
    case TypeRoot.Time => "string"
    // Hive 2.3 has no TIMESTAMP WITH LOCAL TIME ZONE: Paimon records both as timestamp there.
    case TypeRoot.Timestamp | TypeRoot.TimestampLtz => "timestamp"
    case TypeRoot.Other(spelling) => spelling.toLowerCase
  }
}
