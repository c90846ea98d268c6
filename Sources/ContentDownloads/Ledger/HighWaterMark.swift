internal import Foundation
internal import GRDB

/// A per-key number in the journal that only ever grows: the rollback protection of signed documents (the
/// highest catalog version per catalog URL, the highest entitlements sequence per subject). `MAX` in SQL, so two
/// processes cannot lower it, and written with `synchronous=FULL`, so a power loss cannot either.
struct HighWaterMark: Sendable {
    /// The table, its key column and the column holding the mark (constants of this module, never input).
    let table: String
    let key: String
    let mark: String

    /// The mark of `value`, or `nil` before the first one.
    func read(_ value: String, in journal: SQLiteJournal) throws -> UInt64? {
        try journal.queue.read { db in
            try Int64.fetchOne(db, sql: "SELECT \(mark) FROM \(table) WHERE \(key) = ?", arguments: [value])
                .map { UInt64(bitPattern: $0) }
        }
    }

    /// Raises the mark of `value` to `number` (never lowers it). Call only after verification.
    func raise(_ value: String, to number: UInt64, in journal: SQLiteJournal) throws {
        try journal.writeDurably { db in
            try db.executeCached(
                sql: """
                    INSERT INTO \(table) (\(key), \(mark), updatedAt) VALUES (?, ?, ?)
                    ON CONFLICT(\(key)) DO UPDATE SET
                      \(mark) = MAX(COALESCE(\(mark), 0), excluded.\(mark)),
                      updatedAt = excluded.updatedAt
                    """,
                arguments: [value, Int64(bitPattern: number), JournalDate.text(Date())])
        }
    }
}
