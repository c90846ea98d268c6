/// The state of one download, exactly StoreKit's `SKDownloadState`.
///
/// Raw values are the names used in JSON (`status --json`) and in the journal; ``storeKitValue``
/// gives StoreKit's numbers (0–5) for embedders that bridge to old code.
public enum DownloadState: String, Sendable, Codable, CaseIterable {
    /// Inactive, waiting to be downloaded (queued, or waiting to retry).
    case waiting
    /// Actively downloading (or verifying / installing, which are part of getting the content).
    case active
    /// Paused by the user; the partial file and offset are kept.
    case paused
    /// Finished: the content is installed and `contentURL` is valid.
    case finished
    /// Failed; `error` says why and what to do.
    case failed
    /// Cancelled by the user; partial data deleted.
    case cancelled

    /// StoreKit's `SKDownloadState` raw value.
    public var storeKitValue: Int {
        switch self {
        case .waiting: 0
        case .active: 1
        case .paused: 2
        case .finished: 3
        case .failed: 4
        case .cancelled: 5
        }
    }

    /// Whether the download can still make progress (finishing its transaction is refused).
    public var isInFlight: Bool { self == .waiting || self == .active || self == .paused }
}

/// StoreKit's `SKDownloadTimeRemainingUnknown`: `timeRemaining` when no good estimate exists.
public let downloadTimeRemainingUnknown: Double = -1
