package paimonspark.format.parquet

import org.apache.parquet.io.api.Binary

/**
 * How Paimon's Parquet writer stores a timestamp of a precision (TIMESTAMP and TIMESTAMP_LTZ alike):
 * INT64 milliseconds up to 3 digits, INT64 microseconds up to 6, INT96 above. Paimon's readers
 * decode a column by the precision the schema declares, so a file must hold the unit it implies.
 * Values arrive as Spark holds them, microseconds since the epoch (of a UTC wall clock for TIMESTAMP).
 */
sealed trait TimestampUnit
object TimestampUnit {
  case object Millis extends TimestampUnit
  case object Micros extends TimestampUnit
  case object Int96 extends TimestampUnit

  def of(precision: Int): TimestampUnit = if (precision <= 3) Millis else if (precision <= 6) Micros else Int96

  def millis(micros: Long): Long = Math.floorDiv(micros, 1000L)

  private val MillisPerDay = 86400000L
  private val JulianDayOfEpoch = 2440588L

  /**
   * The INT96 value of a timestamp: nanoseconds of the day, then the Julian day, little-endian. As
   * Paimon's writer computes them, with Java's truncating division of the epoch milliseconds, so a
   * time before 1970 that is not a whole day has a negative nanosecond of the day (readers add the two).
   */
  def int96(micros: Long): Binary = {
    val millis = Math.floorDiv(micros, 1000L)
    val nanosOfMilli = Math.floorMod(micros, 1000L) * 1000L
    val julianDay = (millis / MillisPerDay + JulianDayOfEpoch).toInt
    val nanosOfDay = (millis % MillisPerDay) * 1000000L + nanosOfMilli
    val bytes = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    bytes.putLong(nanosOfDay).putInt(julianDay)
    Binary.fromConstantByteArray(bytes.array())
  }
}
