/// One download as observers see it: StoreKit's `SKDownload` fields plus bytes.
public struct DownloadSnapshot: Sendable, Equatable, Encodable {
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

    enum CodingKeys: String, CodingKey {
        case productID, contentIdentifier, contentVersion, state, downloadedBytes, expectedContentLength, progress,
             timeRemaining, error
    }

    /// Encodes `error` as its message (or null).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(productID, forKey: .productID)
        try c.encode(contentIdentifier, forKey: .contentIdentifier)
        try c.encode(contentVersion, forKey: .contentVersion)
        try c.encode(state, forKey: .state)
        try c.encode(downloadedBytes, forKey: .downloadedBytes)
        try c.encode(expectedContentLength, forKey: .expectedContentLength)
        try c.encode(progress, forKey: .progress)
        try c.encode(timeRemaining, forKey: .timeRemaining)
        try c.encode(error?.message, forKey: .error)
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
