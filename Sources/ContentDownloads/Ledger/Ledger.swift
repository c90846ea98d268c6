internal import Foundation
internal import GRDB

/// The ledger of a store's downloads: the one writer of their records (the journal's `transfers` rows).
///
/// A record changes by a typed transition on ``TransferRecord`` (``TransferRecord/apply(_:)`` for pause, resume
/// and cancel, ``TransferRecord/fail(with:)``, ``TransferRecord/restartFromZero()``, …) and is written here:
/// ``save(_:)`` for a whole record, ``recordCheckpoint(_:offset:validator:timeRemaining:writtenInBoot:)`` for the
/// durable offset the fetch reports, ``recordPhase(_:_:)`` for the install's progress, ``request(_:for:)`` for a
/// command another process leaves for the driver. The driving process's `DownloadManager` keeps the records in
/// memory and writes through its ledger; the queue's crash recovery (before the manager starts) and a process that
/// only sends commands (`StoreCommands`) write through theirs. Every write is durable when the call returns.
///
/// Owner: whoever holds the value; the journal connection it writes through serialises writes (GRDB's queue).
package struct Ledger: Sendable {
    private let journal: SQLiteJournal

    /// The ledger written through `journal`.
    package init(journal: SQLiteJournal) { self.journal = journal }

    /// Every record, ordered by creation.
    package func records() throws -> [TransferRecord] {
        try journal.queue.read { db in try TransferRow.order(Column("createdAt"), Column("productID")).fetchAll(db).map(\.record) }
    }

    /// The record of one product.
    package func record(_ productID: String) throws -> TransferRecord? {
        try journal.queue.read { db in try TransferRow.fetchOne(db, key: productID)?.record }
    }

    /// Deletes the record of one product (its download is over and its content gone).
    package func remove(_ productID: String) throws {
        _ = try journal.queue.write { db in try TransferRow.deleteOne(db, key: productID) }
    }

    /// Inserts or replaces a record (its `updatedAt` set to now).
    package func save(_ record: TransferRecord) throws {
        var record = record
        record.updatedAt = Date()
        try journal.queue.write { db in try TransferRow(record).upsert(db) }
    }

    /// Records a durable offset (call only after the partial file was fsynced to it) and the boot that wrote it.
    package func recordCheckpoint(
        _ productID: String, offset: Int64, validator: Validator?, timeRemaining: Double, writtenInBoot: String?
    ) throws {
        try journal.queue.write { db in
            try db.cachedStatement(sql: """
                UPDATE transfers SET durableOffset = ?, etag = ?, lastModified = ?, timeRemaining = ?, writtenInBoot = ?,
                updatedAt = ? WHERE productID = ?
                """).execute(
                arguments: [offset, validator?.etag, validator?.lastModified, timeRemaining, writtenInBoot,
                            JournalDate.text(Date()), productID])
        }
    }

    /// Leaves a command for the driving process; false when the product has no record.
    package func request(_ command: RequestedCommand, for productID: String) throws -> Bool {
        try journal.queue.write { db in
            try db.executeCached(
                sql: "UPDATE transfers SET requestedCommand = ?, updatedAt = ? WHERE productID = ?",
                arguments: [command.rawValue, JournalDate.text(Date()), productID])
            return db.changesCount > 0
        }
    }

    /// Takes (and clears) every pending command, atomically.
    package func takeRequestedCommands() throws -> [(productID: String, command: RequestedCommand)] {
        try journal.queue.write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT productID, requestedCommand FROM transfers WHERE requestedCommand IS NOT NULL ORDER BY updatedAt")
            guard !rows.isEmpty else { return [] }
            try db.execute(sql: "UPDATE transfers SET requestedCommand = NULL WHERE requestedCommand IS NOT NULL")
            return rows.compactMap { row in
                let id: String = row["productID"]
                let raw: String = row["requestedCommand"]
                return RequestedCommand(rawValue: raw).map { (id, $0) }
            }
        }
    }

    /// Records an install phase of a download (`installing`, `installed`).
    package func recordPhase(_ productID: String, _ phase: TransferPhase) throws {
        try journal.queue.write { db in
            try db.executeCached(
                sql: "UPDATE transfers SET phase = ?, updatedAt = ? WHERE productID = ?",
                arguments: [phase.rawValue, JournalDate.text(Date()), productID])
        }
    }
}
