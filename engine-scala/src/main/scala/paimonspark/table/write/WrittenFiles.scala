package paimonspark.table.write

import paimonspark.format.metadata.ManifestEntry

/** What one write task produced: data files, changelog files and the index files that changed. */
final case class WrittenFiles(data: Seq[ManifestEntry], changelog: Seq[ManifestEntry],
    index: Seq[IndexChange])
