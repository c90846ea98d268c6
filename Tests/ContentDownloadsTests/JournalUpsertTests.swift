import ContentDownloads
import Foundation
import Testing

/// `save` writes every column through one cached upsert; an insert and then an update must both read back whole
/// (a column out of order in the statement would land in its neighbour).
@Suite struct JournalUpsertTests {
    @Test func insertThenUpdateReadBackEveryField() throws {
        let store = try makeStore()
        defer { store.remove() }
        let journal = try store.journal()
        let created = Date(timeIntervalSince1970: 1_800_000_000.25)
        var record = TransferRecord(
            productID: "com.example.upsert", contentIdentifier: "com.example.upsert.content", contentVersion: "2.1",
            url: "http://127.0.0.1:8080/a.tar.zst", expectedLength: 12_345, expectedSHA256: String(repeating: "a", count: 64),
            etag: "\"e1\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT", durableOffset: 4_096,
            writtenInBoot: "5d1e2a4c-0000-4000-8000-000000000001", state: "active",
            phase: "downloading", attempts: 2, checksumFailures: 1, lastErrorCode: "network", lastError: "reset",
            partialPath: "/tmp/p.partial", archivePath: "/tmp/a.tar.zst", transactionID: "t-1", requestedCommand: "pause",
            maxBytesPerSecond: 1_000, timeRemaining: 3.5, createdAt: created, updatedAt: created)
        try Ledger(journal: journal).save(record)
        try expectStored(record, in: journal)

        record.etag = nil
        record.lastModified = nil
        record.durableOffset = 12_345
        record.writtenInBoot = nil
        record.state = "finished"
        record.phase = "verified"
        record.attempts = 3
        record.lastErrorCode = nil
        record.lastError = nil
        record.archivePath = nil
        record.transactionID = nil
        record.requestedCommand = nil
        record.maxBytesPerSecond = 0
        record.timeRemaining = -1
        try Ledger(journal: journal).save(record)
        try expectStored(record, in: journal)
        #expect(try Ledger(journal: journal).records().count == 1)
    }

    /// A checkpoint records the offset and the boot that wrote it, and leaves every other column alone.
    @Test func checkpointRecordsTheOffsetAndTheBoot() throws {
        let store = try makeStore()
        defer { store.remove() }
        let journal = try store.journal()
        var record = TransferRecord(
            productID: "com.example.boot", contentIdentifier: "com.example.boot", contentVersion: "1.0",
            url: "http://127.0.0.1:8080/b.tar.zst", expectedLength: 9_000, expectedSHA256: String(repeating: "b", count: 64),
            state: "active", partialPath: "/tmp/b.partial", createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        try Ledger(journal: journal).save(record)
        try Ledger(journal: journal).recordCheckpoint(
            record.productID, offset: 4_096, validator: Validator(etag: "\"v\"", lastModified: nil), timeRemaining: 2,
            writtenInBoot: "boot-a")
        record.durableOffset = 4_096
        record.etag = "\"v\""
        record.timeRemaining = 2
        record.writtenInBoot = "boot-a"
        try expectStored(record, in: journal)
    }

    private func expectStored(_ expected: TransferRecord, in journal: SQLiteJournal) throws {
        var back = try #require(try Ledger(journal: journal).record(expected.productID))
        #expect(abs(back.createdAt.timeIntervalSince(expected.createdAt)) < 0.0011)
        #expect(abs(back.updatedAt.timeIntervalSinceNow) < 60)  // save() stamps now
        back.createdAt = expected.createdAt
        back.updatedAt = expected.updatedAt
        #expect(back == expected)
    }
}
