/// How a download's bytes become installed content: decided once, when the queue plans the download, and
/// journaled with it (the `transfers.planKind` column), so nothing later re-derives it from the files it finds.
package enum DownloadPlanKind: String, Sendable, Codable {
    /// The whole archive, fetched in order into a partial file, verified by its SHA-256, then extracted: one-frame
    /// archives (schema 1), and chunk-indexed ones whose manifest was missing or unreadable.
    case wholeArchive = "archive"
    /// A chunk plan (``ChunkPlan``, kept beside the tree it builds): per file link, rebuild or fetch; the chunks to
    /// fetch, each checked against the signed manifest and placed in the tree that is then swapped in. Install from
    /// nothing, update and repair.
    case chunks
}
