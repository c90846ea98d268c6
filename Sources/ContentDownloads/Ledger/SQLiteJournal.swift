internal import Foundation
internal import GRDB

/// The journal in `journal.sqlite`: GRDB, WAL mode, `synchronous=NORMAL`.
///
/// In WAL mode NORMAL loses nothing when the *process* dies (`kill -9`, a crash): a commit is in
/// the WAL file before it returns. Only a power loss or kernel crash can roll the journal back to
/// an earlier commit — never to a torn one — and every earlier state is one recovery already
/// handles: an older checkpoint offset (the partial file is truncated to it and the rest fetched
/// again; the SHA-256 is recomputed over the kept prefix and checked at the end), an older phase
/// (`verified`/`installing` is installed again; an installed version is recognised), a transaction
/// not yet finished (delivered again, as StoreKit does). The data itself is always fsynced before
/// its row is written. FULL cost one `fdatasync` per commit — about nine per package — which was
/// the largest wait when installing many small packages.
/// Several processes may open the same file (the driver, and `pause`/`resume`/`cancel`/`status`);
/// SQLite's locking plus a busy timeout serialises them.
package final class SQLiteJournal: Sendable {
    /// The database (internal: the queue's transaction tables and the trust records share it).
    let queue: DatabaseQueue

    /// Opens (creating and migrating if needed) the journal at `path`.
    package init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        // Two processes opening a new store at once (a `download` and a `status`) can both see
        // "not migrated" and race to create the table; the loser retries and finds it applied.
        var attempt = 0
        while true {
            do {
                try Self.migrator.migrate(queue)
                break
            } catch {
                attempt += 1
                if attempt >= 5 { throw error }
                usleep(100_000)
            }
        }
    }

    /// One transaction committed with `synchronous=FULL`: for rows that must survive a power loss
    /// once written (the highest catalog version seen — rollback protection must not roll back).
    func writeDurably(_ updates: (Database) throws -> Void) throws {
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
            try db.inTransaction {
                try updates(db)
                return .commit
            }
        }
    }

    /// Named, forward-only migrations. Never edit a shipped one; add a new name.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-transfers") { db in
            try db.create(table: "transfers") { t in
                t.primaryKey("productID", .text)
                t.column("contentIdentifier", .text).notNull()
                t.column("contentVersion", .text).notNull()
                t.column("url", .text).notNull()
                t.column("expectedLength", .integer).notNull()
                t.column("expectedSHA256", .text).notNull()
                t.column("etag", .text)
                t.column("lastModified", .text)
                t.column("durableOffset", .integer).notNull().defaults(to: 0)
                t.column("state", .text).notNull()
                t.column("phase", .text).notNull().defaults(to: "downloading")
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("checksumFailures", .integer).notNull().defaults(to: 0)
                t.column("lastErrorCode", .text)
                t.column("lastError", .text)
                t.column("partialPath", .text).notNull()
                t.column("archivePath", .text)
                t.column("transactionID", .text)
                t.column("requestedCommand", .text)
                t.column("maxBytesPerSecond", .integer).notNull().defaults(to: 0)
                t.column("timeRemaining", .double).notNull().defaults(to: -1)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2-transactions", migrate: TransactionTables.create)
        TrustTables.registerCatalogTrust(&migrator)
        migrator.registerMigration("v3-written-in-boot") { db in
            try db.alter(table: "transfers") { t in t.add(column: "writtenInBoot", .text) }
        }
        TrustTables.registerEntitlementTrust(&migrator)
        // Rows journaled before it get NULL; `DownloadManager.start()` resolves each once from the files it left.
        migrator.registerMigration("v4-plan-kind") { db in
            try db.alter(table: "transfers") { t in t.add(column: "planKind", .text) }
        }
        return migrator
    }
}
