package import CurlTransport
import Glibc

/// Why a download failed, with a message that says what to do next.
///
/// Shaped like Hummingbird's `PersistError`: a struct with a stable ``code`` and static
/// constructors, so new cases can be added without breaking callers.
public struct DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable machine-readable kind (also stored in the journal).
    public struct Code: RawRepresentable, Sendable, Hashable, Codable {
        /// The raw name.
        public let rawValue: String
        /// Wraps a raw name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An HTTP status the server should not have sent.
        public static let httpStatus = Code(rawValue: "httpStatus")
        /// Length or SHA-256 differs from the catalog.
        public static let checksumMismatch = Code(rawValue: "checksumMismatch")
        /// The server sent more bytes than the catalog's length.
        public static let endlessData = Code(rawValue: "endlessData")
        /// Network trouble that outlasted every retry.
        public static let network = Code(rawValue: "network")
        /// Not enough disk space.
        public static let insufficientSpace = Code(rawValue: "insufficientSpace")
        /// A local file operation failed.
        public static let io = Code(rawValue: "io")
        /// The product is not in the catalog, or the catalog could not be read.
        public static let catalog = Code(rawValue: "catalog")
        /// The process driving the download ended without stopping it (killed, crashed, power lost): it waits for
        /// the next driver, which resumes it from its last checkpoint.
        public static let interrupted = Code(rawValue: "interrupted")
        /// Planning the download stopped the process several times in a row without ending (`Store`'s planning
        /// guard): it failed so that a daemon resuming it at every start serves the rest of its queue.
        public static let stoppedPlanning = Code(rawValue: "stoppedPlanning")
        /// The product is not installed in the store (verify, repair or a pack change of something never
        /// downloaded, or deleted since): download it first.
        public static let notInstalled = Code(rawValue: "notInstalled")
        /// A pack change named a pack the product does not declare.
        public static let unknownPack = Code(rawValue: "unknownPack")
        /// A pack change asked to remove an essential pack (`core` among them), which stays with the product.
        public static let essentialPack = Code(rawValue: "essentialPack")
        /// The record of the packs and variants an installed folder holds cannot be read: updates, repairs and
        /// pack additions change nothing until a selection is chosen again (`packs --select`).
        public static let selectionUnreadable = Code(rawValue: "selectionUnreadable")
        /// The installed version has no manifest in the store (installed from a one-frame archive, or another
        /// version's): it cannot be verified or repaired until it is downloaded again from a chunk-indexed catalog.
        public static let noManifest = Code(rawValue: "noManifest")
        /// The download was cancelled before it ended.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The queue closed before the download ended; opening it again finishes it.
        public static let closed = Code(rawValue: "closed")

        /// The code of an install refusal: the ``InstallError``'s own case name (`unsafeEntry`, `outsideLayout`,
        /// `sizeExceeded`, `tooManyEntries`, `wrongContent`, `archiveMismatch`, `refusedManifest`,
        /// `insufficientSpace`, `invalidProductID`, `archive`, `system`, `badChunk`), so a client tells a hostile
        /// archive from a full disk or a publisher's mistake without reading the message.
        public init(_ error: InstallError) { self.init(rawValue: error.errorCode) }
    }

    /// The kind.
    public let code: Code
    /// What happened and what to do.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// An HTTP status that ends the download.
    public static func httpStatus(_ status: Int, url: String) -> DownloadError {
        let advice: String
        switch status {
        case 401, 403: advice = "the server refused access; check the URL token or your purchase, then retry"
        case 404, 410: advice = "the archive is not on the server; the catalog may be stale — refresh it or tell the publisher"
        case 429: advice = "the server is rate-limiting; wait a while and run the command again"
        case 500...599: advice = "the server kept failing; try again later"
        default: advice = "unexpected reply; check the URL and the server"
        }
        return DownloadError(code: .httpStatus, message: "HTTP \(status) for \(url): \(advice)")
    }

    /// The archive's SHA-256 (or length) does not match the catalog, twice.
    public static func checksumMismatch(expected: String, actual: String) -> DownloadError {
        DownloadError(
            code: .checksumMismatch,
            message: "checksum mismatch: the archive's SHA-256 is \(actual) but the catalog says \(expected) (after one restart from zero); the server's file or the catalog is wrong — tell the publisher")
    }

    /// The server's length differs from the catalog's.
    public static func lengthMismatch(expected: Int64, actual: Int64, url: String) -> DownloadError {
        DownloadError(
            code: .checksumMismatch,
            message: "checksum mismatch: \(url) is \(actual) bytes but the catalog says \(expected); the catalog is stale or the mirror is wrong — tell the publisher")
    }

    /// More bytes than promised.
    public static func endlessData(expected: Int64, url: String) -> DownloadError {
        DownloadError(
            code: .endlessData,
            message: "endless data: \(url) sent more than the catalog's \(expected) bytes; the server's file does not match the catalog — tell the publisher")
    }

    /// Network trouble that outlasted the retries.
    package static func network(_ error: CurlError, attempts: Int) -> DownloadError {
        DownloadError(
            code: .network,
            message: "\(error) (gave up after \(attempts) attempt\(attempts == 1 ? "" : "s")); \(error.trustAdvice ?? "check the connection and run the command again — it resumes from the bytes on disk")")
    }

    /// Not enough free space.
    public static func insufficientSpace(needed: Int64, path: String) -> DownloadError {
        DownloadError(
            code: .insufficientSpace,
            message: "not enough disk space in \(path): \(needed) more bytes needed; free some space and run the command again")
    }

    /// Not enough free space in `path` (the store) for what a download writes: `needed` bytes, `available` free.
    package static func insufficientSpace(needed: Int64, available: Int64, path: String) -> DownloadError {
        DownloadError(
            code: .insufficientSpace,
            message: "not enough disk space in \(path): \(needed) bytes needed, \(available) available (\(max(1, needed - available)) more); free some space and run the command again")
    }

    /// Not enough free space for what a download is about to write (refused before any byte is written): an
    /// ``InstallError/insufficientSpace(needed:available:)`` from the space check, with the bytes still missing.
    static func preflight(_ error: InstallError, store: String) -> DownloadError? {
        guard case .insufficientSpace(let needed, let available) = error else { return nil }
        return .insufficientSpace(needed: max(1, needed - available), path: store)
    }

    /// A local file operation failed.
    public static func io(operation: String, path: String, errno: Int32) -> DownloadError {
        DownloadError(code: .io, message: "\(operation) failed for \(path): \(String(cString: strerror(errno))) (errno \(errno)); check permissions and free space, then run the command again")
    }
}
