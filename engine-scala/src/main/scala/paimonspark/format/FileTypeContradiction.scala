package paimonspark.format

/** A data file holds a column in a type that does not hold the type its schema gives the column. */
final class FileTypeContradiction(message: String) extends IllegalArgumentException(message)
