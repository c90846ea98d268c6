import ContentDownloads

/// The download keys of `status --json` and of `download --json` events are the library's wire form of a download
/// (``DownloadSnapshot``'s `Codable` form, the one the daemon sends): scripts and daemon clients read the same keys,
/// with `error` as `{"code", "message"}` or null.
extension DownloadSnapshot {
    /// An installed product that has no download record (its transaction finished): finished, progress 1, zero
    /// bytes.
    init(installedProductID productID: String, version: String) {
        self.init(
            productID: productID, contentIdentifier: "", contentVersion: version, state: .finished, downloadedBytes: 0,
            expectedContentLength: 0, progress: 1, timeRemaining: downloadTimeRemainingUnknown, error: nil)
    }

    /// A row of the progress display (`download --json` events): time remaining only while the download is active
    /// and receiving, else -1.
    init(_ row: ProgressRow) {
        self.init(
            productID: row.productID, contentIdentifier: row.contentIdentifier, contentVersion: row.contentVersion,
            state: DownloadState(rawValue: row.state) ?? .waiting, downloadedBytes: row.downloadedBytes,
            expectedContentLength: row.expectedBytes, progress: row.progress,
            timeRemaining: row.state == "active" && !row.stalled ? row.timeRemaining : -1, error: row.error)
    }
}
