@testable import ContentDownloads
import Testing

/// How much one request of a chunk plan asks for: about two runs per connection of what is left, 1 to 4 MiB; under
/// a receive cap, about a second of a connection's share, so a kill -9 or a pause loses little of what the sockets held.
@Suite("run size")
struct RunSizeTests {
    @Test func uncappedRunsShareWhatIsLeft() {
        #expect(ChunkScheduler.runBytes(waiting: 16 << 20, connections: 8, rate: 0) == 1 << 20)
        #expect(ChunkScheduler.runBytes(waiting: 1 << 30, connections: 8, rate: 0) == 4 << 20)
        #expect(ChunkScheduler.runBytes(waiting: 1 << 20, connections: 8, rate: 0) == 1 << 20)
    }

    @Test func aCappedConnectionsRunIsAboutASecondOfItsShare() {
        // 4 MiB/s over 8 connections: 512 KiB a second each.
        #expect(ChunkScheduler.runBytes(waiting: 16 << 20, connections: 8, rate: 4 << 20) == 512 << 10)
        #expect(ChunkScheduler.runBytes(waiting: 16 << 20, connections: 8, rate: 100 << 10) == 256 << 10, "at least 256 KiB")
        #expect(ChunkScheduler.runBytes(waiting: 1 << 30, connections: 4, rate: 64 << 20) == 4 << 20, "a fast cap changes nothing")
    }

    /// Scattered chunks share what is left among the connections asking, one round of requests: an update's few
    /// MiB, or 23 MiB, over 4 connections. Past 16 MiB a share, a run is at most 4 MiB, the largest run of one range.
    @Test func aRunOfSeveralRangesIsOneRoundOrTheLargestRunOfOne() {
        #expect(ChunkScheduler.rangedRunBytes(waiting: 6 << 20, asking: 4) == (6 << 20) / 4)
        #expect(ChunkScheduler.rangedRunBytes(waiting: 23 << 20, asking: 4) == (23 << 20) / 4)
        #expect(ChunkScheduler.rangedRunBytes(waiting: 160 << 20, asking: 1) == 4 << 20)
        #expect(ChunkScheduler.rangedRunBytes(waiting: 1 << 30, asking: 16) == 4 << 20)
    }

    /// A resumed download's queue: 1 MiB chunks where every third was placed before the pause. Its first run,
    /// asked by one connection alone, takes at most 4 MiB of them (and the chunk that crosses the size).
    @Test func aResumedDownloadsFirstRunDoesNotTakeTheHoles() {
        let frames = (0..<240).map { Int64($0) << 20..<Int64($0 + 1) << 20 }
        var queue = FetchQueue(chunks: (0..<240).filter { $0 % 3 != 0 }, frames: frames)
        let run = queue.nextRun(
            targetBytes: ChunkScheduler.runBytes(waiting: queue.waitingBytes, connections: 4, rate: 0), gapBytes: 64 << 10,
            maxRanges: 16, rangedTargetBytes: ChunkScheduler.rangedRunBytes(waiting: queue.waitingBytes, asking: 1))
        let bytes = run.map { $0.chunks.count << 20 } ?? 0
        #expect(bytes <= 5 << 20, "\(bytes >> 20) MiB in \(run?.ranges.count ?? 0) ranges")
        #expect((run?.ranges.count ?? 0) > 1, "the holes make it a run of several ranges")
    }
}
