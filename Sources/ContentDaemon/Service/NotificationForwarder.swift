internal import ContentDownloads
internal import Foundation
internal import Logging

/// Turns the queue's updates into notifications for subscribed clients, in order:
///
/// - `transaction` {transaction}: added, re-delivered, finished;
/// - `download.state` {download, transactionIDs}: a download's state, error or folder changed (never dropped);
/// - `download.progress` {download, transactionIDs}: bytes moved (at most ``minimumProgressInterval`` apart per
///   download, and coalesced per client while unread);
/// - `download.finished` {download, transactionIDs, contentURL}: installed;
/// - `download.error` {download, transactionIDs, error: {code, message}}: failed;
/// - `content.removed` {productIDs}: content removed (`delete`, or its entitlement was withdrawn);
/// - `packs.changed` {productID, packs}: an installed product's packs or variants changed (its packs now);
/// - `update.available` {update}: a catalog the daemon loaded (its periodic check, or `reloadCatalog`) offers an
///   installed product a newer version, announced once per version;
/// - `entitlements.reconciled` {restored, removed, refusal}: a reconciliation's outcome, or why the entitlements
///   were refused (`refusal`: {code, message}).
///
/// Every params object also has `time`: when the daemon sent it (seconds since 1970), so a client can tell
/// how late it reads; and `sequence`: 1, 2, 3… over the daemon's life, one number per notification sent to its
/// subscribers, so a client can tell it missed one (a progress notification a slow client left unread is replaced
/// by the next one of its download: a gap, and nothing lost but progress).
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
        var sequence: UInt64 = 0
        for await update in updates {
            switch update {
            case .transactions(let transactions):
                for transaction in transactions {
                    broadcast(&sequence, "transaction", TransactionParams(transaction: WireTransaction(transaction)))
                    if transaction.state == .finished {
                        for download in transaction.downloads { last[download.productID] = nil }
                    }
                }
            case .downloads(let downloads):
                for (download, transactionIDs) in Self.oneEach(downloads) {
                    let key = download.productID
                    let previous = last.updateValue(download, forKey: key)
                    let wire = download  // the library's one wire form (ContentDownload: Codable)
                    if let previous, download.onlyMovesProgress(since: previous) {
                        if previous == download { continue }  // nothing moved: the cadence's tick, told already
                        let now = ContinuousClock.now
                        if let sent = lastProgress[key], now - sent < minimumProgressInterval { continue }
                        lastProgress[key] = now
                        broadcast(&sequence, "download.progress", DownloadParams(download: wire, transactionIDs: transactionIDs), progressOf: key)
                        continue
                    }
                    broadcast(&sequence, "download.state", DownloadParams(download: wire, transactionIDs: transactionIDs))
                    if download.state == .finished, let url = download.contentURL {
                        broadcast(&sequence, "download.finished", FinishedParams(download: wire, transactionIDs: transactionIDs, contentURL: url.path))
                    }
                    if download.state == .failed, let error = download.error {
                        broadcast(&sequence, "download.error", FailedParams(download: wire, transactionIDs: transactionIDs, error: error))
                    }
                }
            case .contentRemoved(let productIDs):
                broadcast(&sequence, "content.removed", RemovedParams(productIDs: productIDs))
            case .packsChanged(let productID, let packs):
                broadcast(&sequence, "packs.changed", PacksParams(productID: productID, packs: packs))
            case .updatesAvailable(let updates):
                for update in updates {
                    broadcast(&sequence, "update.available", UpdateParams(update: WireUpdate(update)))
                }
            case .entitlementsReconciled(let outcome):
                broadcast(&sequence, "entitlements.reconciled", ReconciledParams(
                    restored: outcome.restored, removed: outcome.removed,
                    refusal: outcome.refusal))
            }
        }
    }

    /// The downloads of one update, one per product: the queue runs one download per product, which every
    /// unfinished transaction of the product shares, so a client hears of it once, with every transaction it
    /// serves (`transactionIDs`, empty for a download no transaction asked for); the `download` named is the one of
    /// the transaction it serves now.
    static func oneEach(_ downloads: [ContentDownload]) -> [(ContentDownload, [String])] {
        var order: [String] = []
        var byProduct: [String: (download: ContentDownload, ids: [String])] = [:]
        for download in downloads {
            let ids = download.transactionID == ContentDownload.noTransaction ? [] : [download.transactionID]
            if var seen = byProduct[download.productID] {
                seen.ids += ids
                if download.transactionID == download.snapshot.servedTransactionID { seen.download = download }
                byProduct[download.productID] = seen
            } else {
                order.append(download.productID)
                byProduct[download.productID] = (download, ids)
            }
        }
        // A download no transaction asked for (a repair, a pack request, a variant switch) serves none.
        return order.compactMap { byProduct[$0].map { ($0.download, $0.ids.filter { $0 != ContentDownload.noTransaction }) } }
    }

    private func broadcast(_ sequence: inout UInt64, _ method: String, _ params: some Encodable, progressOf key: String? = nil) {
        sequence += 1
        do {
            let stamped = Stamped(params: params, time: Date().timeIntervalSince1970, sequence: sequence)
            server.post(.broadcast(try RPCMessage.notification(method, params: stamped), progressOf: key))
        } catch {
            logger.error("daemon: a \(method) notification could not be encoded: \(error)")
        }
    }

    /// A params object with `time` and `sequence` beside its members.
    struct Stamped<Params: Encodable>: Encodable {
        var params: Params
        var time: Double
        var sequence: UInt64
        enum Key: String, CodingKey { case time, sequence }
        func encode(to encoder: any Encoder) throws {
            try params.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(time, forKey: .time)
            try container.encode(sequence, forKey: .sequence)
        }
    }

    struct TransactionParams: Encodable { var transaction: WireTransaction }
    struct DownloadParams: Encodable { var download: ContentDownload; var transactionIDs: [String] }
    struct FinishedParams: Encodable { var download: ContentDownload; var transactionIDs: [String]; var contentURL: String }
    struct FailedParams: Encodable { var download: ContentDownload; var transactionIDs: [String]; var error: DownloadError }
    struct RemovedParams: Encodable { var productIDs: [String] }
    struct PacksParams: Encodable { var productID: String; var packs: [PackStatus] }
    struct UpdateParams: Encodable { var update: WireUpdate }
    struct ReconciledParams: Encodable {
        var restored: [String]
        var removed: [String]
        @NullWhenEmpty var refusal: DownloadError?
    }
}
