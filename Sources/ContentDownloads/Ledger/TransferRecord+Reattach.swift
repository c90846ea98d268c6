internal import ContentDelivery
internal import ContentPackaging
internal import Foundation

extension TransferRecord {
    /// A new download of `product` from `url` as `plan` says, waiting, with nothing received yet.
    init(_ product: CatalogProduct, url: String, partialPath: String, transactionID: String?, plan: DownloadPlanKind, now: Date = Date()) {
        self.init(
            productID: product.productID, contentIdentifier: product.contentIdentifier,
            contentVersion: product.contentVersion.description, url: url, expectedLength: product.length,
            expectedSHA256: product.sha256.lowercased(), planKind: plan, etag: nil, lastModified: nil, durableOffset: 0,
            state: DownloadState.waiting.rawValue, phase: TransferPhase.downloading.rawValue, attempts: 0,
            checksumFailures: 0, lastErrorCode: nil, lastError: nil, partialPath: partialPath, archivePath: nil,
            transactionID: transactionID, requestedCommand: nil, maxBytesPerSecond: 0, timeRemaining: -1,
            createdAt: now, updatedAt: now)
    }

    /// The same archive was asked for again: an unfinished download keeps its bytes and state (a paused
    /// one stays paused); a failed one is retried from its bytes; a cancelled one, or a finished one whose
    /// archive is gone, starts over.
    mutating func prepareToReattach() {
        switch downloadState {
        case .finished:
            durableOffset = 0
            downloadState = .waiting
        case .failed:
            downloadState = .waiting
            forgetAttempts()
        case .cancelled:
            durableOffset = 0
            validator = nil
            forgetAttempts()
            downloadState = .waiting
        case .waiting, .active, .paused:
            break
        }
    }

    /// Clears the retry count, the checksum-failure count and the last error.
    private mutating func forgetAttempts() {
        attempts = 0
        checksumFailures = 0
        lastError = nil
        lastErrorCode = nil
    }
}
