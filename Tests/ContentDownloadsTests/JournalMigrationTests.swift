import ContentDownloads
import Foundation
import GRDB
import Testing

/// A store whose journal predates `writtenInBoot` (written by an earlier release) opens, gains the
/// column, keeps its rows, and keeps only fsynced bytes for them: nothing says which boot wrote them.
@Suite struct JournalMigrationTests {
    @Test func aJournalFromBeforeTheBootColumnMigratesAndKeepsOnlyDurableBytes() throws {
        let store = try makeStore()
        defer { store.remove() }
        do {
            let journal = try store.journal()
            try Ledger(journal: journal).save(TransferRecord(
                productID: "com.example.old", contentIdentifier: "com.example.old", contentVersion: "1.0",
                url: "http://127.0.0.1:8080/old.tar.zst", expectedLength: 9_000, expectedSHA256: String(repeating: "d", count: 64),
                durableOffset: 4_096, writtenInBoot: "some-boot", state: "active", partialPath: "/tmp/old.partial"))
        }
        // Turn it into the previous release's journal: no column, no record of the migration.
        do {
            let queue = try DatabaseQueue(path: store.journalFile.path)
            try queue.write { db in
                try db.execute(sql: "ALTER TABLE transfers DROP COLUMN writtenInBoot")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3-written-in-boot'")
            }
            try queue.close()
        }

        // The next process opens the store anew, and with it the journal.
        let journal = try Store(root: store.root).journal()
        var record = try #require(try Ledger(journal: journal).record("com.example.old"))
        #expect(record.durableOffset == 4_096)
        #expect(record.writtenInBoot == nil)
        #expect(!record.keepsWrittenTail)
        record.writtenInBoot = "next-boot"
        try Ledger(journal: journal).save(record)
        #expect(try Ledger(journal: journal).record("com.example.old")?.writtenInBoot == "next-boot")
    }

    /// A journal from before the plan kind: each row is resolved once, when a manager starts, from the files its
    /// download kept (a manifest, a tree or a plan: a chunk plan; none: the whole archive), and journaled.
    @Test func aJournalFromBeforeThePlanKindResolvesEachRowOnceFromItsFiles() async throws {
        let store = try makeStore()
        defer { store.remove() }
        do {
            let journal = try store.journal()
            for id in ["com.example.chunks", "com.example.archive"] {
                try Ledger(journal: journal).save(TransferRecord(
                    productID: id, contentIdentifier: id, contentVersion: "1.0", url: "http://127.0.0.1:9/\(id).tar.zst",
                    expectedLength: 9_000, expectedSHA256: String(repeating: "d", count: 64), planKind: nil,
                    state: "paused", partialPath: store.partialFile(productID: id).path))
            }
        }
        do {
            let queue = try DatabaseQueue(path: store.journalFile.path)
            try await queue.write { db in
                try db.execute(sql: "ALTER TABLE transfers DROP COLUMN planKind")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4-plan-kind'")
            }
            try queue.close()
        }
        try FileManager.default.createDirectory(at: store.transfersDirectory, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: store.manifestFile(productID: "com.example.chunks", version: "1.0"))

        let reopened = try Store(root: store.root)
        #expect(try reopened.ledger().record("com.example.chunks")?.planKind == nil, "the migration adds the column only")
        let manager = try DownloadManager(store: reopened, options: fastOptions())
        try await manager.start()
        await manager.shutdown()
        let journal = try reopened.journal()
        #expect(try Ledger(journal: journal).record("com.example.chunks")?.planKind == .chunks)
        #expect(try Ledger(journal: journal).record("com.example.archive")?.planKind == .wholeArchive)
        // Resolved for good: the files going away later does not change it.
        try FileManager.default.removeItem(at: reopened.manifestFile(productID: "com.example.chunks", version: "1.0"))
        let again = try DownloadManager(store: reopened, options: fastOptions())
        try await again.start()
        await again.shutdown()
        #expect(try reopened.ledger().record("com.example.chunks")?.planKind == .chunks)
    }
}
