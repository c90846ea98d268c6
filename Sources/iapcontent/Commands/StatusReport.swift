import ContentDownloads
import Foundation

/// One product in `status --json`: the download keys StoreKit names (unchanged since the first
/// release, so existing scripts keep working) plus what the store knows around it.
///
/// Every key is always present (null when there is nothing): `productID`, `contentVersion`, `state`,
/// `downloadedBytes`, `expectedContentLength`, `progress`, `timeRemaining` (-1 unknown), `error`,
/// `installedVersion`, `updateAvailable` (the catalog's newer version; null without a catalog),
/// `transactions` (`id`, `kind`, `state`, `contentVersion`, `finished`). A product installed with no
/// download record (its transaction finished) shows `state` "finished", progress 1 and zero bytes.
struct StatusEntry: Encodable, Equatable {
    var productID: String
    var contentVersion: String
    var state: String
    var downloadedBytes: Int64
    var expectedContentLength: Int64
    var progress: Double
    var timeRemaining: Double
    var error: String?
    var installedVersion: String?
    var updateAvailable: String?
    var transactions: [TransactionEntry]

    /// A transaction of the product: unfinished ones (`finished` false) and the finished history.
    struct TransactionEntry: Encodable, Equatable {
        var id: String
        var kind: String
        var state: String
        var contentVersion: String
        var finished: Bool
    }

    enum CodingKeys: String, CodingKey {
        case installedVersion, updateAvailable, transactions
    }

    func encode(to encoder: any Encoder) throws {
        try DownloadJSONKeys.encode(
            to: encoder, productID: productID, contentVersion: contentVersion, state: state,
            downloadedBytes: downloadedBytes, expectedContentLength: expectedContentLength, progress: progress,
            timeRemaining: timeRemaining, error: error)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(installedVersion, forKey: .installedVersion)
        try c.encode(updateAvailable, forKey: .updateAvailable)
        try c.encode(transactions, forKey: .transactions)
    }
}

/// Builds the `status` entries from the journal's downloads, the store's transactions and its installed content.
enum StatusReport {
    /// One entry per download record, then one per installed product without a record, in that order.
    static func entries(
        snapshots: [DownloadSnapshot], overview: StoreOverview, installed: [String: String],
        updates: [String: String]
    ) -> [StatusEntry] {
        var transactions: [String: [StatusEntry.TransactionEntry]] = [:]
        for t in overview.transactions {
            transactions[t.productID, default: []].append(
                .init(id: t.id, kind: t.kind.rawValue, state: t.state.rawValue, contentVersion: t.contentVersion, finished: false))
        }
        for t in overview.history {
            transactions[t.productID, default: []].append(
                .init(id: t.transactionID, kind: t.kind.rawValue, state: "finished", contentVersion: t.contentVersion, finished: true))
        }
        var entries = snapshots.map { s in
            StatusEntry(
                productID: s.productID, contentVersion: s.contentVersion, state: s.state.rawValue,
                downloadedBytes: s.downloadedBytes, expectedContentLength: s.expectedContentLength, progress: s.progress,
                timeRemaining: s.timeRemaining, error: s.error?.message, installedVersion: installed[s.productID],
                updateAvailable: updates[s.productID], transactions: transactions[s.productID] ?? [])
        }
        let listed = Set(snapshots.map(\.productID))
        for (id, version) in installed.sorted(by: { $0.key < $1.key }) where !listed.contains(id) {
            entries.append(
                StatusEntry(
                    productID: id, contentVersion: version, state: DownloadState.finished.rawValue, downloadedBytes: 0,
                    expectedContentLength: 0, progress: 1, timeRemaining: downloadTimeRemainingUnknown, error: nil,
                    installedVersion: version, updateAvailable: updates[id], transactions: transactions[id] ?? []))
        }
        return entries
    }
}
