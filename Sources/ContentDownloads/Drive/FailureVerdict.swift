internal import CurlTransport
internal import Foundation
internal import Glibc

/// What one failed transfer attempt means for its download: the error to record, whether it ends the
/// download, whether the bytes kept so far are worthless, and how long the server asked us to wait.
struct FailureVerdict {
    /// The error recorded for this attempt (shown while the download waits to retry).
    var error: DownloadError
    /// The error that ends the download now; `nil` when another attempt may succeed.
    var final: DownloadError?
    /// The partial bytes cannot be trusted or resumed: delete them and start over.
    var restartFromZero = false
    /// The server's `Retry-After`, in seconds.
    var retryAfter: Double?
}

extension TransferFailure {
    /// Classifies this failure for `record` (whose checksum-failure count it raises for a bad body):
    /// transient network errors, 5xx/408/429 and a failed resume are retried; a body that fails its
    /// SHA-256 or length is fetched once more from zero, then fails; endless data, other HTTP statuses,
    /// permanent curl errors and disk errors fail at once (`ENOSPC` as insufficient space).
    func verdict(for record: inout TransferRecord) -> FailureVerdict {
        switch self {
        case .network(let error):
            let transient = DownloadError.network(error, attempts: record.attempts + 1)
            return FailureVerdict(error: transient, final: error.isTransient ? nil : transient)
        case .httpStatus(let status, let url, let after):
            let error = DownloadError.httpStatus(status, url: url)
            let retried = status >= 500 || status == 429 || status == 408
            return FailureVerdict(error: error, final: retried ? nil : error, retryAfter: after)
        case .cannotResume(let reason):
            let error = DownloadError(code: .network, message: "cannot resume \(record.url): \(reason); restarting from zero")
            return FailureVerdict(error: error, final: nil, restartFromZero: true)
        case .checksumMismatch(let expected, let actual):
            return Self.badBody(.checksumMismatch(expected: expected, actual: actual), record: &record)
        case .lengthMismatch(let expected, let actual, let url):
            return Self.badBody(.lengthMismatch(expected: expected, actual: actual, url: url), record: &record)
        case .endlessData(let expected, let url):
            let error = DownloadError.endlessData(expected: expected, url: url)
            return FailureVerdict(error: error, final: error)
        case .badChunk(let message):
            record.countBadBody()
            let error = DownloadError(code: .checksumMismatch, message: "\(message); the download was damaged in transit or the archive on \(record.url) differs from its signed manifest")
            return FailureVerdict(error: error, final: record.checksumFailures >= 2 ? error : nil)
        case .install(let failure):
            let error = DownloadError(code: .init(failure), message: "cannot install: \(failure.description)")
            return FailureVerdict(error: error, final: error)
        case .insufficientSpace(let needed, let available):
            let error = DownloadError.insufficientSpace(needed: needed, available: available, path: record.storeRoot)
            return FailureVerdict(error: error, final: error)
        case .io(let operation, let path, let code):
            let error: DownloadError = code == ENOSPC
                ? .insufficientSpace(needed: record.expectedLength - record.durableOffset, path: path)
                : .io(operation: operation, path: path, errno: code)
            return FailureVerdict(error: error, final: error)
        }
    }

    /// A body that was not the archive: fetched again from zero once, then the download fails.
    private static func badBody(_ error: DownloadError, record: inout TransferRecord) -> FailureVerdict {
        record.countBadBody()
        return FailureVerdict(error: error, final: record.checksumFailures >= 2 ? error : nil, restartFromZero: true)
    }
}
