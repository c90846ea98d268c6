import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Synchronization
import Testing
import TestSupport

/// The install pipeline tells the transfer loop when the attempt's first chunk is in place, so the first progress
/// is reported then and not when a socket next wakes the loop. The first chunk is placed once the plan handed over
/// is kept; a server pacing its replies in bursts (nginx `limit_rate`) may have gone quiet by then, and a daemon's
/// first `download.progress` came 0.34–0.52 s after `add` in 3 of 18 downloads.
@Suite("Chunk install pipeline: the first placement wakes the transfer loop")
struct PlacementWakeTests {
    @Test func theFirstChunkPlacedAfterThePlanIsKeptWakesTheLoop() throws {
        let fixture = try ChunkedFixture.standard(megabytes: 3)
        let (package, plan) = try fixture.keepManifest()
        let placed = try PlacedChunks(treePath: fixture.tree.path, chunkCount: package.chunks.count)
        let loop = try PlacementLoop(package: package, plan: plan, treePath: fixture.tree.path, placed: placed, settings: TransferSettings())
        let memory = FrameMemory(budgetBytes: 16 << 20, queuedBytes: 16 << 20, wake: {})
        let keeping = PlanKeeping()
        let wakes = Atomic(0)
        let pipeline = ChunkInstallPipeline(
            package: package, stage: loop, startOffset: 0, memory: memory, keeping: keeping,
            wake: { wakes.add(1, ordering: .relaxed) })
        defer { pipeline.stop() }

        // The first chunk's frame arrives while the plan is still being kept: it waits, placed nowhere.
        let chunk = package.chunks[0]
        var frame = SegmentedFrame()
        frame.admitted = FrameMemory.segments(for: Int(chunk.length))
        for _ in 0..<frame.admitted { frame.append(memory.segment()) }
        _ = fixture.archive[Int(chunk.offset)..<Int(chunk.offset + chunk.length)].withUnsafeBytes { frame.fill(from: $0) }
        memory.handOver(frame)
        pipeline.submitFrame(index: 0, frame: frame, source: 0)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(pipeline.placedBytes == 0, "placed before the plan was kept")
        #expect(wakes.load(ordering: .relaxed) == 0)

        keeping.settle(nil)
        let deadline = Date().addingTimeInterval(10)
        while pipeline.placedBytes == 0 || wakes.load(ordering: .relaxed) == 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(pipeline.placedBytes == chunk.length)
        #expect(pipeline.durableOffset == 0, "a checkpoint would wake the loop anyway: nothing would be shown")
        #expect(wakes.load(ordering: .relaxed) == 1, "the first chunk in place did not wake the transfer loop")
    }
}
