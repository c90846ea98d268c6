@testable import ContentDownloads
import Foundation
import Testing

extension DownloadManager {
    /// Makes `productID` a running transfer of `length` bytes with `bytes` on disk, whose last byte arrived
    /// `silentFor` seconds ago after 10 s of steady data, as the engine's events would have left it.
    func simulateTransfer(_ productID: String, length: Int64, bytes: Int64, silentFor: Double) {
        if records[productID] == nil {
            records[productID] = TransferRecord(
                productID: productID, contentIdentifier: productID, contentVersion: "1.0", url: "http://127.0.0.1:9/",
                expectedLength: length, expectedSHA256: String(repeating: "0", count: 64),
                state: DownloadState.active.rawValue, partialPath: "/nonexistent")
            live[productID] = LiveState()
        }
        active.insert(productID)
        let start = MonotonicTime.now() - silentFor - 10
        var estimator = RateEstimator()
        estimator.start(at: start, bytes: 0)
        for second in 1...10 { estimator.record(bytes: bytes * Int64(second) / 10, at: start + Double(second)) }
        live[productID]?.pace.fetched = estimator
        live[productID]?.downloadedBytes = bytes
    }
}

/// The stall check runs in the manager's poll loop; here it is called directly, on a transfer whose
/// estimator state is set as the engine's events would have left it, so no timing can make it flaky.
@Suite("Updates: a stall is sent")
struct StallUpdateTests {
    @Test("a transfer whose bytes stop sends timeRemaining -1 once, while still active")
    func stallTurnsTimeRemainingUnknownInAnUpdate() async throws {
        let store = try makeStore()
        defer { store.remove() }
        let manager = try DownloadManager(store: store, options: fastOptions())
        let updates = manager.updates
        var iterator = updates.makeAsyncIterator()
        let id = "com.example.stall"

        await manager.simulateTransfer(id, length: 100 << 20, bytes: 10 << 20, silentFor: 0)
        await manager.emit(id, force: true)  // the progress event that carried the last bytes
        let flowing = try #require(await iterator.next())
        #expect(flowing.state == .active && flowing.timeRemaining > 0, "\(flowing)")
        await manager.reportStalls()
        #expect(manager.published.bufferedCounts == [0])  // still flowing: nothing to say

        await manager.simulateTransfer(id, length: 100 << 20, bytes: 10 << 20, silentFor: 6)  // past the 5 s stall time
        await manager.reportStalls()
        let stalled = try #require(await iterator.next())
        #expect(stalled.state == .active)
        #expect(stalled.timeRemaining == downloadTimeRemainingUnknown)
        #expect(stalled.downloadedBytes == 10 << 20)
        await manager.reportStalls()
        #expect(manager.published.bufferedCounts == [0])  // said once

        await manager.simulateTransfer(id, length: 100 << 20, bytes: 11 << 20, silentFor: 0)  // bytes again
        await manager.emit(id, force: true)
        #expect(try #require(await iterator.next()).timeRemaining > 0)
        await manager.simulateTransfer(id, length: 100 << 20, bytes: 11 << 20, silentFor: 6)  // and a second stall
        await manager.reportStalls()
        #expect(try #require(await iterator.next()).timeRemaining == downloadTimeRemainingUnknown)
    }

    @Test("the running manager's poll loop sends the stall by itself")
    func pollLoopSendsTheStall() async throws {
        let store = try makeStore()
        defer { store.remove() }
        let manager = try DownloadManager(store: store, options: fastOptions())
        var iterator = manager.updates.makeAsyncIterator()
        try await manager.start()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            await manager.shutdown()  // ends the updates: the expectations below then fail
        }
        defer { watchdog.cancel() }
        let id = "com.example.stall"
        await manager.simulateTransfer(id, length: 100 << 20, bytes: 10 << 20, silentFor: 0)
        await manager.emit(id, force: true)
        #expect(try #require(await iterator.next()).timeRemaining > 0)
        await manager.simulateTransfer(id, length: 100 << 20, bytes: 10 << 20, silentFor: 6)
        let stalled = try #require(await iterator.next())
        #expect(stalled.state == .active && stalled.timeRemaining == downloadTimeRemainingUnknown, "\(stalled)")
        await manager.shutdown()
    }
}
