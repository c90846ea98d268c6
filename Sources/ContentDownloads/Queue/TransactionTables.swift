internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import GRDB

/// The queue's tables in the store's journal (migration `v2-transactions`):
/// - `transactions`: unfinished transactions, with the catalog product they install (so a restart
///   can install a verified archive without the catalog);
/// - `history`: finished transactions, used by restore;
/// - `storeValues`: small facts about the store (the highest catalog version accepted).
/// Transfers link to their transaction through `transfers.transactionID`.
enum TransactionTables {
    /// Creates both tables (registered in ``SQLiteJournal/migrator``).
    static func create(_ db: Database) throws {
        try db.create(table: "transactions") { t in
            t.primaryKey("id", .text)
            t.column("productID", .text).notNull()
            t.column("kind", .text).notNull()
            t.column("state", .text).notNull()
            t.column("product", .blob).notNull()
            t.column("url", .text).notNull()
            t.column("createdAt", .datetime).notNull()
        }
        try db.create(table: "history") { t in
            t.primaryKey("transactionID", .text)
            t.column("productID", .text).notNull().indexed()
            t.column("kind", .text).notNull()
            t.column("contentVersion", .text).notNull()
            t.column("finishedAt", .datetime).notNull()
        }
        try db.create(table: "storeValues") { t in
            t.primaryKey("key", .text)
            t.column("value", .text).notNull()
        }
    }
}

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

    /// Records an install phase of a transfer (`installing`, `installed`).
    func recordPhase(_ productID: String, _ phase: TransferPhase) throws {
        try queue.write { db in
            try db.executeCached(
                sql: "UPDATE transfers SET phase = ?, updatedAt = ? WHERE productID = ?",
                arguments: [phase.rawValue, JournalDate.text(Date()), productID])
        }
    }
}
