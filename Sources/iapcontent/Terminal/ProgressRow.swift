import ContentDownloads

/// One download as the progress display sees it: StoreKit's `SKDownload` fields plus speed and stall.
///
/// Kept independent of the engine's snapshot type so rendering can be tested on its own; the download
/// command converts each engine snapshot into a row (see ``ProgressTracker`` for speed and stall).
struct ProgressRow: Sendable, Equatable {
    /// The product identifier shown at the start of the line.
    var productID: String
    /// StoreKit's content identifier (shown in JSON events; empty when unknown).
    var contentIdentifier: String = ""
    /// The content version (shown in JSON events; empty when unknown).
    var contentVersion: String = ""
    /// StoreKit's state name: waiting, active, paused, finished, failed or cancelled.
    var state: String
    /// Bytes on disk.
    var downloadedBytes: Int64
    /// The archive's length (0 when unknown).
    var expectedBytes: Int64
    /// Current receive speed, nil when not measured yet.
    var bytesPerSecond: Double? = nil
    /// Seconds remaining, -1 when unknown (StoreKit's `SKDownloadTimeRemainingUnknown`).
    var timeRemaining: Double = -1
    /// True when an active download has received no bytes for a while (about 5 s).
    var stalled: Bool = false
    /// Why it failed (or the last transient error while retrying).
    var error: DownloadError? = nil
    /// Whether this is the download of a purchase's prefetch packs, which follows the purchase's own download of
    /// the same product: shown on a row of its own (``name``).
    var packs = false

    /// What the display calls the row, and keys it by: the product, or the product's prefetch packs.
    var name: String { packs ? productID + " (packs)" : productID }

    /// `downloadedBytes / expectedBytes` clamped to 0…1 (1 for a finished download of unknown size).
    var progress: Double {
        guard expectedBytes > 0 else { return state == "finished" ? 1 : 0 }
        return min(1, max(0, Double(downloadedBytes) / Double(expectedBytes)))
    }

    /// Whether the download has reached an end state (finished, failed or cancelled).
    var isFinal: Bool { state == "finished" || state == "failed" || state == "cancelled" }
}
