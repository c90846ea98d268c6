import ContentDownloads
import Foundation

/// The eight download keys shared by `status --json` and `download --json` events, as one value.
///
/// Scripts read both outputs with the same code, so the key names, what fills them and the "always present,
/// null when empty" rule for `error` live here only; ``StatusEntry`` and the JSON events put their own keys
/// beside these in the same object.
struct DownloadJSON: Encodable, Equatable, Sendable {
    /// The product identifier.
    var productID: String
    /// The content version (empty when unknown).
    var contentVersion: String
    /// StoreKit's state name: waiting, active, paused, finished, failed or cancelled.
    var state: String
    /// Bytes on disk.
    var downloadedBytes: Int64
    /// The archive's length (0 when unknown).
    var expectedContentLength: Int64
    /// 0…1.
    var progress: Double
    /// Seconds remaining, -1 when unknown.
    var timeRemaining: Double
    /// Why it failed (or the last transient error while retrying); null when there is none.
    @NullWhenEmpty var error: String?
}

extension DownloadJSON {
    /// The keys of a download record as the journal and the engine report it (`status --json`).
    init(_ snapshot: DownloadSnapshot) {
        self.init(
            productID: snapshot.productID, contentVersion: snapshot.contentVersion, state: snapshot.state.rawValue,
            downloadedBytes: snapshot.downloadedBytes, expectedContentLength: snapshot.expectedContentLength,
            progress: snapshot.progress, timeRemaining: snapshot.timeRemaining, error: snapshot.error?.message)
    }

    /// The keys of an installed product that has no download record (its transaction finished): finished,
    /// progress 1, zero bytes.
    init(installedProductID productID: String, version: String) {
        self.init(
            productID: productID, contentVersion: version, state: DownloadState.finished.rawValue, downloadedBytes: 0,
            expectedContentLength: 0, progress: 1, timeRemaining: downloadTimeRemainingUnknown, error: nil)
    }

    /// The keys of a row of the progress display (`download --json` events): time remaining only while the
    /// download is active and receiving, else -1.
    init(_ row: ProgressRow) {
        self.init(
            productID: row.productID, contentVersion: row.contentVersion, state: row.state,
            downloadedBytes: row.downloadedBytes, expectedContentLength: row.expectedBytes, progress: row.progress,
            timeRemaining: row.state == "active" && !row.stalled ? row.timeRemaining : -1, error: row.error)
    }
}

/// JSON as the CLI prints it: sorted keys and unescaped slashes; pretty for a whole document (`status --json`,
/// `validate --json`), one line for a progress event.
enum JSONText {
    /// `value` as JSON text.
    static func encode(_ value: some Encodable, pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
