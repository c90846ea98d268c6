@testable import ContentDownloads
import Testing

/// A server that answers one range per request: a gap between needed chunks is read through while it takes less
/// than a round trip at a connection's measured rate, so scattered chunks cost a few requests, not one each.
@Suite("gap budget")
struct GapBudgetTests {
    static let setting: Int64 = 128 << 10

    @Test func untilMeasuredTheSettingHolds() {
        var budget = GapBudget()
        #expect(budget.gapBytes(minimum: Self.setting) == Self.setting)
        budget.observe(roundTrip: 0.15, bytes: 64 << 10, seconds: 0.01)  // too short a body to measure a rate
        #expect(budget.roundTrip == 0.15 && budget.bytesPerSecond == nil)
        #expect(budget.gapBytes(minimum: Self.setting) == Self.setting)
    }

    @Test func aFarServerReadsARoundTripsWorth() {
        var budget = GapBudget()
        budget.observe(roundTrip: 0.15, bytes: 4 << 20, seconds: 2)  // 2 MiB/s a connection
        #expect(budget.gapBytes(minimum: Self.setting) == Int64(0.15 * Double(2 << 20)))
    }

    @Test func aNearServerKeepsTheSettingAndAFastFarOneIsCapped() {
        var near = GapBudget(), fast = GapBudget()
        near.observe(roundTrip: 0.000_2, bytes: 64 << 20, seconds: 0.13)  // loopback: 100 KB a round trip
        #expect(near.gapBytes(minimum: Self.setting) == Self.setting)
        fast.observe(roundTrip: 0.3, bytes: 400 << 20, seconds: 2)
        #expect(fast.gapBytes(minimum: Self.setting) == GapBudget.maximumBytes)
    }

    @Test func measurementsAreSmoothed() {
        var budget = GapBudget()
        budget.observe(roundTrip: 0.1, bytes: 1 << 20, seconds: 1)
        budget.observe(roundTrip: 0.5, bytes: 1 << 20, seconds: 1)
        #expect(abs(budget.roundTrip! - 0.2) < 1e-9)
    }

    @Test("one changed 64 KB group in four, 150 ms away at 2 MiB/s: three requests instead of fifty")
    func scatteredChunksFromAFarServerTakeFewRequests() {
        let frames = (0..<200).map { Int64($0) * 64_000..<Int64($0 + 1) * 64_000 }
        let wanted = Array(stride(from: 0, to: 200, by: 4))
        var budget = GapBudget()
        budget.observe(roundTrip: 0.15, bytes: 4 << 20, seconds: 2)
        func runs(gap: Int64) -> [FetchQueue.Run] {
            var queue = FetchQueue(chunks: wanted, frames: frames)
            var runs: [FetchQueue.Run] = []
            while let run = queue.nextRun(targetBytes: 1 << 20, gapBytes: gap, maxRanges: 1) { runs.append(run) }
            return runs
        }
        let before = runs(gap: Self.setting), after = runs(gap: budget.gapBytes(minimum: Self.setting))
        #expect(before.count == 50)
        #expect(after.count <= 4, "\(after.count) requests")
        #expect(after.flatMap(\.chunks) == wanted)
        // Each gap read costs less than the round trip it saves.
        let read = after.reduce(Int64(0)) { $0 + Int64($1.range.count) }, needed = Int64(wanted.count) * 64_000
        #expect(Double(read - needed) / Double(2 << 20) < 0.15 * Double(before.count - after.count), "read \(read) for \(needed)")
    }

    @Test("the gaps a plan reads through add up to at most its allowance; past it, a run stops at the gap")
    func theGapAllowanceBoundsWhatRunsReadThrough() {
        let frames = (0..<200).map { Int64($0) * 64_000..<Int64($0 + 1) * 64_000 }
        let wanted = Array(stride(from: 0, to: 200, by: 4))  // gaps of 192 000 bytes
        var queue = FetchQueue(chunks: wanted, frames: frames)
        let first = queue.nextRun(targetBytes: 1 << 20, gapBytes: 4 << 20, maxRanges: 1, gapAllowance: 400_000)
        #expect(first?.chunks == [0, 4, 8], "two gaps fit in the allowance, the third does not")
        var runs: [FetchQueue.Run] = []
        while let run = queue.nextRun(targetBytes: 1 << 20, gapBytes: 4 << 20, maxRanges: 1, gapAllowance: 0) { runs.append(run) }
        #expect(runs.count == wanted.count - 3 && runs.allSatisfy { $0.chunks.count == 1 }, "no allowance: a request each")
    }
}
