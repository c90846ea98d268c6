@testable import ContentDownloads
import Testing

/// What a run reads through between the chunks it needs: small chunks scattered over an archive (file groups of
/// 64 KiB, every other one changed) cost their own bytes when the server takes several ranges, and the gaps only
/// when each request is one range.
@Suite("fetch queue: gaps")
struct FetchQueueGapTests {
    /// 64 frames of 60 KB; the plan needs every other one.
    static let frames: [Range<Int64>] = (0..<64).map { Int64($0) * 60_000..<Int64($0 + 1) * 60_000 }
    static let wanted = Array(stride(from: 0, to: 64, by: 2))

    /// Every run the queue hands out, until none waits.
    static func runs(maxRanges: Int) -> [FetchQueue.Run] {
        var queue = FetchQueue(chunks: wanted, frames: frames)
        var runs: [FetchQueue.Run] = []
        while let run = queue.nextRun(targetBytes: 4 << 20, gapBytes: 128 << 10, maxRanges: maxRanges, rangedTargetBytes: 16 << 20) {
            runs.append(run)
        }
        return runs
    }

    @Test("several ranges a request: each chunk its own range, nothing read through until the ranges run out")
    func severalRangesReadNoGaps() {
        let runs = Self.runs(maxRanges: 16)
        let read = runs.flatMap(\.ranges).reduce(Int64(0)) { $0 + Int64($1.count) }
        let needed = Int64(Self.wanted.count) * 60_000
        #expect(runs.flatMap(\.chunks).sorted() == Self.wanted)
        // The 16th range of a request may take the rest of its run with the gaps between (they save a request).
        #expect(read <= needed + Int64(runs.count) * 16 * 60_000, "read \(read) for \(needed)")
        #expect(runs.allSatisfy { $0.ranges.count == 16 || $0.ranges.count == Self.wanted.count % 16 || runs.count == 1 })
        #expect(runs.first!.ranges.prefix(15).allSatisfy { $0.count == 60_000 }, "each of the first 15 ranges is one chunk")
    }

    @Test("one range a request: gaps up to the read-through limit are read, saving requests")
    func oneRangeReadsGaps() {
        let runs = Self.runs(maxRanges: 1)
        #expect(runs.allSatisfy { $0.ranges.count == 1 })
        #expect(runs.count < Self.wanted.count, "neighbouring chunks 60 KB apart share a request")
    }
}
