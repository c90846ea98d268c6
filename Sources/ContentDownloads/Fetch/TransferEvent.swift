package import CurlTransport
/// What the transfer thread reports about one download, in order.
package enum TransferEvent: Sendable, Equatable {
    /// The response was accepted; `restartedFromZero` when a 200 replaced a range request.
    case started(id: String, offset: Int64, restartedFromZero: Bool)
    /// Bytes on disk (written, not necessarily durable; a chunk plan's chunks in place), and `fetched`: the
    /// attempt's count of bytes off the network, starting at the `started` offset (what the rate is measured
    /// on; a chunk plan's frames still arriving count), and `drain`: once nothing is left to hand out, the seconds
    /// the slowest running connection needs for what it was given, at its rate (0 before), and `outlook`: while a
    /// chunk plan's connection count still grows, the rate the connections will reach in bytes a second
    /// (``ConnectionTuner/outlook(connectionRates:busy:cap:)``; 0 otherwise), and `placing`: the bytes a second a chunk
    /// plan's install places while it works (``ChunkInstallPipeline/placingRate``; 0: not known, or a whole archive).
    /// At most ~10 per second per transfer.
    case progress(id: String, bytesOnDisk: Int64, fetched: Int64, drain: Double, outlook: Double, placing: Double)
    /// The partial file is fsynced up to `offset`; safe to record in the journal.
    case checkpoint(id: String, offset: Int64, validator: Validator?)
    /// The archive is complete, its SHA-256 matches and it was renamed to `archivePath` (for a chunk-indexed
    /// archive: every chunk matched its signed hash and `archivePath` is the finished tree).
    case verified(id: String, archivePath: String)
    /// The transfer ended without a verified archive; the partial file is kept up to `offset`.
    case failed(id: String, failure: TransferFailure, offset: Int64)
    /// The transfer was stopped on request (pause or cancel); `offset` is durable.
    case stopped(id: String, offset: Int64, deleted: Bool)
}

/// An event of one attempt of a download: the engine runs attempts of one product one after another, and an
/// event of an attempt that was stopped and followed by another must never be taken for the later one's (its
/// end, its checkpoints, its files).
package struct AttemptEvent: Sendable, Equatable {
    /// The attempt (``TransferRequest/attemptID``) the event belongs to.
    package let attemptID: UInt64
    /// What happened.
    package let event: TransferEvent
}

extension TransferEvent {
    /// The download (product identifier) the event is about.
    var id: String {
        switch self {
        case .started(let id, _, _), .progress(let id, _, _, _, _, _), .checkpoint(let id, _, _), .verified(let id, _),
             .failed(let id, _, _), .stopped(let id, _, _):
            id
        }
    }

    /// Whether the event ends its attempt (nothing of that attempt follows it).
    var endsAttempt: Bool {
        switch self {
        case .verified, .failed, .stopped: true
        case .started, .progress, .checkpoint: false
        }
    }
}

/// Why a transfer ended without a verified archive, classified for the retry policy.
package enum TransferFailure: Sendable, Equatable {
    /// Network trouble worth retrying (reset, refused, timeout, stall).
    case network(CurlError)
    /// An HTTP status other than 200/206/416; `retryAfter` in seconds when the server sent one.
    case httpStatus(Int, url: String, retryAfter: Double?)
    /// The server sent more than the catalog's length.
    case endlessData(expected: Int64, url: String)
    /// The range response did not match the request, or the remote file changed; restart from zero.
    case cannotResume(reason: String)
    /// The complete file's SHA-256 differs from the catalog's.
    case checksumMismatch(expected: String, actual: String)
    /// The server's length differs from the catalog's.
    case lengthMismatch(expected: Int64, actual: Int64, url: String)
    /// A local file operation failed.
    case io(operation: String, path: String, errno: Int32)
    /// The store's file system cannot hold what the download writes: `needed` bytes, `available` free (the
    /// numbers of the check or write that found it, kept for the message a person reads).
    case insufficientSpace(needed: Int64, available: Int64)
    /// A chunk of a chunk-indexed archive failed its signed hash or length (the message names it).
    case badChunk(String)
    /// A chunk-indexed archive cannot be installed as it arrives: what its headers, manifest or plan got wrong.
    case install(InstallError)
}
extension TransferFailure: Error {}
