import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

@Suite("Updates: a stall is sent")
struct StallUpdateTests {
    @Test("a transfer that stalls sends timeRemaining -1 while still active, without any new byte")
    func stallTurnsTimeRemainingUnknownInAnUpdate() async throws {
        let bytes = TestData.randomBytes(6 << 20, seed: 41)
        let stallAt = 5 << 20
        // 64 KiB every 50 ms (past the estimator's 2.5 s warm-up by the stall), then 6.5 s of silence, then a drop.
        let server = try FaultServer(
            body: bytes, faults: [.stall(at: stallAt, seconds: 6.5)], chunkDelay: 0.05, lifetime: 240)
        defer { server.stop() }
        let store = try makeStore()
        defer { store.remove() }
        let result = try await download(product("com.example.stall", bytes: bytes), url: server.url(), store: store, options: fastOptions())

        #expect(result.final?.state == .finished)
        let all = result.all
        let known = try #require(all.firstIndex { $0.state == .active && $0.timeRemaining > 0 }, "no estimate before the stall")
        // Still in the first attempt (the drop after the stall makes it wait, then start again).
        let stalled = all[known...].prefix { $0.state == .active }.first { $0.timeRemaining == downloadTimeRemainingUnknown }
        // Progress is sent at most every 0.1 s, so the stalled snapshot may lag the last chunk or two.
        let bytesAtStall = try #require(stalled?.downloadedBytes, "\(all.map { ($0.state, $0.downloadedBytes, $0.timeRemaining) })")
        #expect((Int64(stallAt - 3 * 65_536)...Int64(stallAt)).contains(bytesAtStall))
    }
}
