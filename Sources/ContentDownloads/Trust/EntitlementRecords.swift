internal import Foundation
internal import GRDB

/// What a store remembers about the entitlements documents it trusted, in the journal.
///
/// `entitlementTrust` keeps, per subject, the highest `sequence` accepted after verification — rollback
/// protection like `catalogTrust`'s `highestCatalogVersion`: it only grows (`MAX` in SQL) and is written
/// with `synchronous=FULL`, so a power loss cannot lower it either.
extension SQLiteJournal {
    /// The entitlements migration; named and forward-only like every other one.
    static func registerEntitlementMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-entitlement-trust") { db in
            try db.create(table: "entitlementTrust") { t in
                t.primaryKey("subject", .text)
                t.column("highestSequence", .integer).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
        }
    }

    /// The highest `sequence` accepted for `subject`, or `nil` before the first one.
    func highestEntitlementSequence(subject: String) throws -> UInt64? {
        try queue.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT highestSequence FROM entitlementTrust WHERE subject = ?", arguments: [subject]
            ).map { UInt64(bitPattern: $0) }
        }
    }

    /// Raises the remembered sequence of `subject` to `sequence` (never lowers it). Call only after verification.
    func recordEntitlementSequence(_ sequence: UInt64, subject: String) throws {
        try writeDurably { db in
            try db.executeCached(
                sql: """
                    INSERT INTO entitlementTrust (subject, highestSequence, updatedAt) VALUES (?, ?, ?)
                    ON CONFLICT(subject) DO UPDATE SET
                      highestSequence = MAX(highestSequence, excluded.highestSequence),
                      updatedAt = excluded.updatedAt
                    """,
                arguments: [subject, Int64(bitPattern: sequence), JournalDate.text(Date())])
        }
    }
}
