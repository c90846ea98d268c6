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

/// One unfinished transaction as stored.
struct TransactionRow: Sendable, Equatable {
    var id: String
    var productID: String
    var kind: TransactionKind
    var state: TransactionState
    var product: CatalogProduct
    var url: String
    var createdAt: Date
}

/// One finished transaction as stored.
struct HistoryRow: Sendable, Equatable {
    var transactionID: String
    var productID: String
    var kind: TransactionKind
    var contentVersion: String
    var finishedAt: Date
}

extension SQLiteJournal {
    /// Unfinished transactions, oldest first.
    func transactionRows() throws -> [TransactionRow] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM transactions ORDER BY createdAt, id").map { row in
                let data: Data = row["product"]
                return TransactionRow(
                    id: row["id"], productID: row["productID"],
                    kind: TransactionKind(rawValue: row["kind"]) ?? .purchase,
                    state: TransactionState(rawValue: row["state"]) ?? .purchased,
                    product: try JSONDecoder().decode(CatalogProduct.self, from: data),
                    url: row["url"], createdAt: row["createdAt"])
            }
        }
    }

    /// Inserts or replaces an unfinished transaction.
    func saveTransaction(_ row: TransactionRow) throws {
        let product = try JSONEncoder().encode(row.product)
        try queue.write { db in
            try db.executeCached(
                sql: "INSERT OR REPLACE INTO transactions (id, productID, kind, state, product, url, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [row.id, row.productID, row.kind.rawValue, row.state.rawValue, product, row.url, JournalDate.text(row.createdAt)])
        }
    }

    /// Moves a transaction to the history, atomically.
    func finishTransaction(_ row: TransactionRow, at date: Date) throws {
        try queue.write { db in
            try db.executeCached(sql: "DELETE FROM transactions WHERE id = ?", arguments: [row.id])
            try db.executeCached(
                sql: "INSERT OR REPLACE INTO history (transactionID, productID, kind, contentVersion, finishedAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [row.id, row.productID, row.kind.rawValue, row.product.contentVersion.description, JournalDate.text(date)])
        }
    }

    /// Finished transactions, oldest first.
    func historyRows() throws -> [HistoryRow] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM history ORDER BY finishedAt, transactionID").map { row in
                HistoryRow(
                    transactionID: row["transactionID"], productID: row["productID"],
                    kind: TransactionKind(rawValue: row["kind"]) ?? .purchase,
                    contentVersion: row["contentVersion"], finishedAt: row["finishedAt"])
            }
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
