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

    /// A snapshot from its fields (the CLI builds the rows it prints as JSON from them, so its `--json` keys are
    /// the library's wire form).
    package init(
        productID: String, contentIdentifier: String, contentVersion: String, state: DownloadState,
        downloadedBytes: Int64, expectedContentLength: Int64, progress: Double, timeRemaining: Double,
        error: DownloadError?
    ) {
        self.productID = productID
        self.contentIdentifier = contentIdentifier
        self.contentVersion = contentVersion
        self.state = state
        self.downloadedBytes = downloadedBytes
        self.expectedContentLength = expectedContentLength
        self.progress = progress
        self.timeRemaining = timeRemaining
        self.error = error
    }

    /// The transaction the download served when the snapshot was taken (not part of its wire form or equality):
    /// the queue delivers a snapshot to the transactions it was about, never to one added after it.
    package var servedTransactionID: String? = nil

    /// Equal when every field a listener reads is equal (the transaction the snapshot served aside).
    public static func == (a: DownloadSnapshot, b: DownloadSnapshot) -> Bool {
        (a.productID, a.contentIdentifier, a.contentVersion, a.state, a.downloadedBytes, a.expectedContentLength)
            == (b.productID, b.contentIdentifier, b.contentVersion, b.state, b.downloadedBytes, b.expectedContentLength)
            && (a.progress, a.timeRemaining) == (b.progress, b.timeRemaining) && a.error == b.error
    }
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

extension DownloadSnapshot {
    /// An `active` download whose driving process is gone: `waiting`, no time remaining, and why.
    mutating func markInterrupted() {
        state = .waiting
        timeRemaining = downloadTimeRemainingUnknown
        error = DownloadError(
            code: .interrupted,
            message: "interrupted: the process driving this download ended without stopping it (killed or crashed); \(downloadedBytes) bytes are kept and the next `iapcontent daemon` or `download` on this store resumes from there")
    }
}
