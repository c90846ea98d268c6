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
            try journal.save(TransferRecord(
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
        var record = try #require(try journal.record("com.example.old"))
        #expect(record.durableOffset == 4_096)
        #expect(record.writtenInBoot == nil)
        #expect(!record.keepsWrittenTail)
        record.writtenInBoot = "next-boot"
        try journal.save(record)
        #expect(try journal.record("com.example.old")?.writtenInBoot == "next-boot")
    }
}
