internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import GRDB

/// One unfinished transaction as stored (table `transactions`; `product` is the catalog entry as JSON).
struct TransactionRow: Sendable, Equatable, JournalRecord {
    static let databaseTableName = "transactions"
    var id: String
    var productID: String
    var kind: TransactionKind
    var state: TransactionState
    var product: CatalogProduct
    var url: String
    var createdAt: Date
}

/// A finished transaction is stored as it is shown (table `history`).
extension StoreOverview.Finished: JournalRecord {
    static let databaseTableName = "history"
}

extension SQLiteJournal {
    /// Unfinished transactions, oldest first. A row that does not decode (an unknown kind or state, a
    /// damaged product) is an error naming the column, not a silent default.
    func transactionRows() throws -> [TransactionRow] {
        try queue.read { db in try TransactionRow.order(Column("createdAt"), Column("id")).fetchAll(db) }
    }

    /// Inserts or replaces an unfinished transaction.
    func saveTransaction(_ row: TransactionRow) throws {
        try queue.write { db in try row.insert(db, onConflict: .replace) }
    }

    /// Moves a transaction to the history, atomically.
    func finishTransaction(_ row: TransactionRow, at date: Date) throws {
        try queue.write { db in
            _ = try row.delete(db)
            try StoreOverview.Finished(
                transactionID: row.id, productID: row.productID, kind: row.kind,
                contentVersion: row.product.contentVersion.description, finishedAt: date
            ).insert(db, onConflict: .replace)
        }
    }

    /// Finished transactions, oldest first.
    func historyRows() throws -> [StoreOverview.Finished] {
        try queue.read { db in
            try StoreOverview.Finished.order(Column("finishedAt"), Column("transactionID")).fetchAll(db)
        }
    }
}
