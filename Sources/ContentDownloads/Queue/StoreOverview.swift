internal import ContentDelivery
internal import ContentPackaging
public import Foundation

/// A read-only look at a store's transactions from any process (`iapcontent status`), without
/// driving it: its downloads, unfinished transactions and the history of finished ones.
public struct StoreOverview: Sendable {
    /// An unfinished transaction as recorded.
    public struct Transaction: Sendable, Equatable {
        /// The transaction identifier.
        public var id: String
        /// The product identifier.
        public var productID: String
        /// Purchase or restore.
        public var kind: TransactionKind
        /// Purchased or restored.
        public var state: TransactionState
        /// The content version its download installs.
        public var contentVersion: String
    }

    /// A finished transaction (the history restore uses), as the journal stores it.
    public struct Finished: Sendable, Equatable, Codable {
        /// The transaction identifier.
        public var transactionID: String
        /// The product identifier.
        public var productID: String
        /// Purchase or restore.
        public var kind: TransactionKind
        /// The content version it installed.
        public var contentVersion: String
        /// When it was finished.
        public var finishedAt: Date
    }

    /// Every download record, ordered by creation.
    public var downloads: [DownloadSnapshot]
    /// Unfinished transactions, oldest first.
    public var transactions: [Transaction]
    /// Finished transactions, oldest first.
    public var history: [Finished]

    /// Reads the store's journal. With no process driving the store, a download the journal says is `active` was
    /// interrupted (its driver was killed or crashed): it reads `waiting`, with no time remaining and the error
    /// `interrupted` saying so, because that is what the next driver does with it.
    public init(store: Store) throws {
        let journal = try store.journal()
        let driven = DriverLock.isHeld(store: store)
        downloads = try Ledger(journal: journal).records().map { record in
            var snapshot = DownloadSnapshot(record: record)
            if !driven, snapshot.state == .active { snapshot.markInterrupted() }
            return snapshot
        }
        transactions = try journal.transactionRows().map {
            Transaction(id: $0.id, productID: $0.productID, kind: $0.kind, state: $0.state,
                        contentVersion: $0.product.contentVersion.description)
        }
        history = try journal.historyRows()
    }
}
