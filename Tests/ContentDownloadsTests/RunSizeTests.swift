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
}
