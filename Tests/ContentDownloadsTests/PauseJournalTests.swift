import ContentDelivery
import ContentDownloads
import Foundation
import TestSupport
import Testing

/// A pause reaches the journal together with the stop's final checkpoint: another process (`status`) never
/// reads `paused` with an offset that then still moves.
@Suite struct PauseJournalTests {
    @Test func aPausedRowAlreadyHoldsItsFinalOffset() async throws {
        let nginx = try Nginx(locationConfig: "limit_rate 10k;")  // 400 s for the file: a starved test task still pauses mid-way
        defer { nginx.stop() }
        let bytes = TestData.randomBytes(4 << 20, seed: 21)
        try Data(bytes).write(to: nginx.root.appendingPathComponent("p.bin"))
        let layout = try makeStore()
        defer { layout.remove() }
        let item = product("com.example.pause", bytes: bytes)
        let journal = try layout.journal()
        let manager = try DownloadManager(store: layout, options: fastOptions())
        try await manager.start()
        try await manager.enqueue(item, url: nginx.baseURL + "/p.bin", plan: .wholeArchive)
        // A checkpoint first (at 1 s), then more bytes after it, then the pause.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, (try Ledger(journal: journal).record(item.productID)?.durableOffset ?? 0) == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))
        await manager.pause(item.productID)
        let right = try #require(try Ledger(journal: journal).record(item.productID))  // what `status` would read now
        var settled = right
        let settling = Date().addingTimeInterval(60)
        while Date() < settling, settled.state != "paused" {
            try await Task.sleep(for: .milliseconds(20))
            settled = try #require(try Ledger(journal: journal).record(item.productID))
        }
        await manager.shutdown()
        #expect(settled.state == "paused")
        if right.state == "paused" { #expect(right.durableOffset == settled.durableOffset, "\(right) → \(settled)") }
        let written = try FileManager.default.attributesOfItem(atPath: layout.partialFile(productID: item.productID).path)[.size] as? Int
        #expect(Int64(written ?? -1) == settled.durableOffset)  // paused at every byte written, all fsynced
    }
}
