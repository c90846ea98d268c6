import ContentDownloads
import ContentPackaging
import Foundation

/// One product in `status --json`: the library's wire form of a download (the keys the daemon sends) plus what the
/// store knows around it.
///
/// Every key is always present (null when there is nothing): `productID`, `contentIdentifier`, `contentVersion`,
/// `state`, `downloadedBytes`, `expectedContentLength`, `progress`, `timeRemaining` (-1 unknown), `error`
/// (`{"code", "message"}`),
/// `installedVersion`, `updateAvailable` (the catalog's newer version; null without a catalog),
/// `updateBytes` (what that update fetches: only what changed, or the whole archive; null without an update),
/// `transactions` (`id`, `kind`, `state`, `contentVersion`, `finished`), `packs` (each pack's `id`, `policy`,
/// `installed`, `bytes`, `bytesToFetch`; null for a product without packs). A product installed with no
/// download record (its transaction finished) shows `state` "finished", progress 1 and zero bytes.
struct StatusEntry: Encodable, Equatable {
    /// The download keys.
    var download: DownloadSnapshot
    /// The keys beside them.
    var store: StoreKeys

    /// What the store knows around a download: every key always present (null when there is nothing).
    struct StoreKeys: Encodable, Equatable {
        /// The installed content version, null when not installed.
        @NullWhenEmpty var installedVersion: String?
        /// The catalog's newer version, null without a catalog or update.
        @NullWhenEmpty var updateAvailable: String?
        /// The bytes that update fetches, null without an update.
        @NullWhenEmpty var updateBytes: Int64?
        /// The product's transactions.
        var transactions: [TransactionEntry]
        /// The installed product's packs, null when it declares none.
        @NullWhenEmpty var packs: [PackStatus]?
    }

    /// A transaction of the product: unfinished ones (`finished` false) and the finished history.
    struct TransactionEntry: Encodable, Equatable {
        var id: String
        var kind: String
        var state: String
        var contentVersion: String
        var finished: Bool
    }

    /// The download keys and the store's keys, in one object.
    func encode(to encoder: any Encoder) throws {
        try download.encode(to: encoder)
        try store.encode(to: encoder)
    }
}

/// Builds the `status` entries from the journal's downloads, the store's transactions and its installed content.
enum StatusReport {
    /// One entry per download record, then one per installed product without a record, in that order.
    static func entries(
        snapshots: [DownloadSnapshot], overview: StoreOverview, installed: [String: String],
        updates: [String: ContentUpdate], packs: [String: [PackStatus]] = [:]
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
        func keys(_ productID: String) -> StatusEntry.StoreKeys {
            StatusEntry.StoreKeys(
                installedVersion: installed[productID], updateAvailable: updates[productID]?.catalogVersion.description,
                updateBytes: updates[productID]?.downloadBytes, transactions: transactions[productID] ?? [], packs: packs[productID])
        }
        var entries = snapshots.map { StatusEntry(download: $0, store: keys($0.productID)) }
        let listed = Set(snapshots.map(\.productID))
        for (id, version) in installed.sorted(by: { $0.key < $1.key }) where !listed.contains(id) {
            entries.append(StatusEntry(download: DownloadSnapshot(installedProductID: id, version: version), store: keys(id)))
        }
        return entries
    }
}
