/// What every error of this module (and of the daemon built on it) is: a stable code to branch on and a message
/// that says what happened and what to do.
///
/// ``DownloadError``, ``QueueError``, ``InstallError`` and ``DriverLockError`` conform, so a service can handle
/// them in one place: `catch let error as any ContentError { report(error.errorCode, error.description) }`.
public protocol ContentError: Error, Sendable, CustomStringConvertible {
    /// A stable name of the kind of failure (`unknownProduct`, `checksumMismatch`, `storeBusy`, …): it never changes
    /// for a kind, so clients can branch on it; the `description` is for people.
    var errorCode: String { get }
}

extension DownloadError: ContentError {
    /// ``code``'s raw name (`httpStatus`, `checksumMismatch`, `network`, `insufficientSpace`, `io`, `catalog`, …).
    public var errorCode: String { code.rawValue }
}

extension QueueError: ContentError {
    /// The case's name: `downloadsInFlight`, `unknownTransaction`, `unknownProduct`, `noHostedContent`, `journal`,
    /// `noTransaction`, `downloadCancelled`, `closed`, `emptyTransactionID`, `transactionReused`.
    public var errorCode: String {
        switch self {
        case .downloadsInFlight: "downloadsInFlight"
        case .unknownTransaction: "unknownTransaction"
        case .unknownProduct: "unknownProduct"
        case .noHostedContent: "noHostedContent"
        case .journal: "journal"
        case .noTransaction: "noTransaction"
        case .downloadCancelled: "downloadCancelled"
        case .closed: "closed"
        case .emptyTransactionID: "emptyTransactionID"
        case .transactionReused: "transactionReused"
        }
    }
}

extension InstallError: ContentError {
    /// The case's name: `unsafeEntry`, `outsideLayout`, `sizeExceeded`, `tooManyEntries`, `wrongContent`,
    /// `archiveMismatch`, `refusedManifest`, `insufficientSpace`, `invalidProductID`, `archive`, `system`, `badChunk`.
    public var errorCode: String {
        switch self {
        case .unsafeEntry: "unsafeEntry"
        case .outsideLayout: "outsideLayout"
        case .sizeExceeded: "sizeExceeded"
        case .tooManyEntries: "tooManyEntries"
        case .wrongContent: "wrongContent"
        case .archiveMismatch: "archiveMismatch"
        case .refusedManifest: "refusedManifest"
        case .insufficientSpace: "insufficientSpace"
        case .invalidProductID: "invalidProductID"
        case .archive: "archive"
        case .system: "system"
        case .badChunk: "badChunk"
        }
    }
}

extension DriverLockError: ContentError {
    /// `storeBusy` (another process drives the store) or `lockIO` (the lock file cannot be made).
    public var errorCode: String {
        switch self {
        case .busy: "storeBusy"
        case .io: "lockIO"
        }
    }
}
