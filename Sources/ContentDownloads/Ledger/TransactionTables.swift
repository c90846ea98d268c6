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
