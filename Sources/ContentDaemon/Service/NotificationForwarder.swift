internal import ContentDownloads
internal import Foundation
internal import Logging

/// Turns the queue's updates into notifications for subscribed clients, in order:
///
/// - `transaction` {transaction}: added, re-delivered, finished;
/// - `download.state` {download}: a download's state, error or folder changed (never dropped);
/// - `download.progress` {download}: bytes moved (at most ``minimumProgressInterval`` apart per download, and
///   coalesced per client while unread);
/// - `download.finished` {download, contentURL}: installed;
/// - `download.error` {download, error: {code, message}}: failed;
/// - `content.removed` {productIDs}: content removed because its entitlement was withdrawn;
/// - `entitlements.reconciled` {restored, removed, refusal}: a reconciliation's outcome, or why the entitlements
///   were refused (`refusal`: {code, message}).
///
/// Every params object also has `time`: when the daemon sent it (seconds since 1970), so a client can tell
/// how late it reads.
struct NotificationForwarder: Sendable {
    let server: SocketServer
    /// The shortest time between two progress notifications of one download (10 per second at most).
    var minimumProgressInterval: Duration = .milliseconds(100)
    private let logger = Logger(label: "iapcontent.daemon")

    init(server: SocketServer) { self.server = server }

    /// Forwards until `updates` ends (the queue closed).
    func run(_ updates: some AsyncSequence<ContentQueueUpdate, Never>) async {
        var last: [String: ContentDownload] = [:]
        var lastProgress: [String: ContinuousClock.Instant] = [:]
        for await update in updates {
            switch update {
            case .transactions(let transactions):
                for transaction in transactions {
                    broadcast("transaction", TransactionParams(transaction: WireTransaction(transaction)))
                    if transaction.state == .finished {
                        for download in transaction.downloads { last["\(download.transactionID)/\(download.productID)"] = nil }
                    }
                }
            case .downloads(let downloads):
                for download in downloads {
                    let key = "\(download.transactionID)/\(download.productID)"
                    let previous = last.updateValue(download, forKey: key)
                    let wire = download  // the library's one wire form (ContentDownload: Codable)
                    if let previous, download.onlyMovesProgress(since: previous) {
                        let now = ContinuousClock.now
                        if let sent = lastProgress[key], now - sent < minimumProgressInterval { continue }
                        lastProgress[key] = now
                        broadcast("download.progress", DownloadParams(download: wire), progressOf: key)
                        continue
                    }
                    broadcast("download.state", DownloadParams(download: wire))
                    if download.state == .finished, let url = download.contentURL {
                        broadcast("download.finished", FinishedParams(download: wire, contentURL: url.path))
                    }
                    if download.state == .failed, let error = download.error {
                        broadcast("download.error", FailedParams(download: wire, error: error))
                    }
                }
            case .contentRemoved(let productIDs):
                broadcast("content.removed", RemovedParams(productIDs: productIDs))
            case .entitlementsReconciled(let outcome):
                broadcast("entitlements.reconciled", ReconciledParams(
                    restored: outcome.restored, removed: outcome.removed,
                    refusal: outcome.refusal))
            }
        }
    }

    private func broadcast(_ method: String, _ params: some Encodable, progressOf key: String? = nil) {
        do {
            let stamped = Stamped(params: params, time: Date().timeIntervalSince1970)
            server.post(.broadcast(try RPCMessage.notification(method, params: stamped), progressOf: key))
        } catch {
            logger.error("daemon: a \(method) notification could not be encoded: \(error)")
        }
    }

    /// A params object with `time` beside its members.
    struct Stamped<Params: Encodable>: Encodable {
        var params: Params
        var time: Double
        enum Key: String, CodingKey { case time }
        func encode(to encoder: any Encoder) throws {
            try params.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(time, forKey: .time)
        }
    }

    struct TransactionParams: Encodable { var transaction: WireTransaction }
    struct DownloadParams: Encodable { var download: ContentDownload }
    struct FinishedParams: Encodable { var download: ContentDownload; var contentURL: String }
    struct FailedParams: Encodable { var download: ContentDownload; var error: DownloadError }
    struct RemovedParams: Encodable { var productIDs: [String] }
    struct ReconciledParams: Encodable {
        var restored: [String]
        var removed: [String]
        @NullWhenEmpty var refusal: DownloadError?
    }
}
