/// One download as observers see it: StoreKit's `SKDownload` fields plus bytes.
public struct DownloadSnapshot: Sendable, Equatable, Codable {
    /// The product identifier.
    public var productID: String
    /// StoreKit's content identifier.
    public var contentIdentifier: String
    /// The content version.
    public var contentVersion: String
    /// The StoreKit state.
    public var state: DownloadState
    /// Bytes on disk.
    public var downloadedBytes: Int64
    /// The archive's length.
    public var expectedContentLength: Int64
    /// `downloadedBytes / expectedContentLength`, 0…1.
    public var progress: Double
    /// Seconds remaining, or -1 when unknown.
    public var timeRemaining: Double
    /// Why it failed (or the last transient error while retrying).
    public var error: DownloadError?
}

extension DownloadSnapshot {
    /// The snapshot a journal row alone gives (another process, or no live estimate).
    package init(record: TransferRecord) {
        let state = record.downloadState
        let bytes = state == .finished ? record.expectedLength : record.durableOffset
        self.init(
            productID: record.productID, contentIdentifier: record.contentIdentifier,
            contentVersion: record.contentVersion, state: state, downloadedBytes: bytes,
            expectedContentLength: record.expectedLength,
            progress: record.expectedLength > 0 ? min(1, Double(bytes) / Double(record.expectedLength)) : (state == .finished ? 1 : 0),
            timeRemaining: state == .active ? record.timeRemaining : downloadTimeRemainingUnknown,
            error: record.failure)
    }
}
