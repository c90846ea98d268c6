import ContentDownloads
import Foundation
import Testing

/// Journal timestamps are written by hand (no ICU); they must read back as the same instant (to the millisecond).
@Suite struct TrustJournalDateTests {
    @Test(arguments: [0.0, 1_800_000_000.123, 951_782_400.999, 4_102_444_799.5, 1_234.007])
    func datesRoundTripThroughTheJournal(_ seconds: Double) throws {
        let store = try makeStore()
        defer { store.remove() }
        let journal = try store.journal()
        let date = Date(timeIntervalSince1970: seconds)
        let record = TransferRecord(
            productID: "com.example.dates", contentIdentifier: "com.example.dates", contentVersion: "1.0",
            url: "http://127.0.0.1/a", expectedLength: 1, expectedSHA256: String(repeating: "0", count: 64), etag: nil,
            lastModified: nil, durableOffset: 0, state: "waiting", phase: "downloading", attempts: 0, checksumFailures: 0,
            lastErrorCode: nil, lastError: nil, partialPath: "/tmp/x", archivePath: nil, transactionID: nil,
            requestedCommand: nil, maxBytesPerSecond: 0, timeRemaining: -1, createdAt: date, updatedAt: date)
        try Ledger(journal: journal).save(record)
        let back = try #require(try Ledger(journal: journal).record("com.example.dates"))
        #expect(abs(back.createdAt.timeIntervalSince1970 - seconds) < 0.0011)  // milliseconds are stored
        #expect(abs(back.updatedAt.timeIntervalSinceNow) < 60)  // save() stamps now
    }
}
