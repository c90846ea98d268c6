import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Synchronization
import Testing
import TestSupport

/// The engine's frame memory: connections take segments within one budget and pause when it is spent; segments a
/// verifier gives back wake the engine; when nothing is handed over, one connection at a time goes past the budget,
/// so a download always completes, and a bad frame is still fetched again alone.
@Suite("Chunk scheduler: frame memory")
struct FrameMemoryTests {
    final class Owner {}

    @Test func takesWithinTheBudgetAndWakesTheLoopWhenSegmentsComeBack() {
        let wakes = Atomic(0)
        let memory = FrameMemory(budgetBytes: 4 * FrameMemory.segmentBytes, queuedBytes: 4 * FrameMemory.segmentBytes, wake: { wakes.add(1, ordering: .relaxed) })
        let first = Owner(), second = Owner(), third = Owner()
        let frame = memory.take(2, for: first)!
        _ = memory.take(2, for: second)!
        memory.handOver(2, from: first)
        #expect(memory.take(1, for: third) == nil, "the budget is spent and a frame is with a verifier")
        #expect(!memory.mayResume())
        memory.giveBack(frame, handedOver: true)
        #expect(wakes.load(ordering: .relaxed) == 1, "the failed take wakes the loop once")
        #expect(memory.mayResume())
        #expect(memory.take(1, for: third)?.count == 1)
        memory.giveBack(frame, handedOver: false)
        #expect(wakes.load(ordering: .relaxed) == 1, "no take failed since")
    }

    @Test func withNothingHandedOverOneConnectionAtATimeGoesPastTheBudget() {
        let memory = FrameMemory(budgetBytes: 2 * FrameMemory.segmentBytes, queuedBytes: 2 * FrameMemory.segmentBytes, wake: {})
        let first = Owner(), second = Owner()
        var held = memory.take(1, for: first)!
        _ = memory.take(1, for: second)!
        // Every segment is in a frame still arriving: nothing would come back, so one connection goes on.
        held += memory.take(3, for: first)!
        #expect(memory.take(1, for: second) == nil, "the grant is taken")
        held += memory.take(1, for: first)!
        #expect(memory.usage.inUse == 6 && memory.usage.peak == 6)
        memory.handOver(held.count, from: first)
        #expect(memory.take(1, for: second) == nil, "over the budget with a frame at the verifier: wait for it")
        memory.giveBack(held, handedOver: true)
        #expect(memory.take(1, for: second)?.count == 1)
        memory.releaseFree()
    }

    /// Downloads `fixture` from `servers` with `transfer` settings.
    static func download(_ fixture: ChunkedFixture, _ servers: [FaultServer], _ configure: (inout TransferSettings) -> Void)
        async throws -> DownloadSnapshot?
    {
        try fixture.keepManifest()
        var options = fastOptions()
        configure(&options.transfer)
        let manager = try DownloadManager(store: fixture.store, options: options)
        let updates = manager.updates
        try await manager.start()
        try await manager.enqueue(fixture.product(), candidates: servers.map { $0.url() }, catalogURL: nil, plan: .chunks)
        return await runToEnd(manager, fixture.manifest.productID, updates: updates, timeout: 60).last
    }

    @Test func eightConnectionsSharingOneSegmentStillComplete() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 12)
        let server = try FaultServer(body: fixture.archive)
        defer { server.stop() }
        let final = try await Self.download(fixture, [server]) {
            $0.connections = 8
            $0.maxConnections = 8
            $0.frameMemoryBytes = FrameMemory.segmentBytes
        }
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        #expect(server.totalBodyBytesSent == fixture.archive.count, "nothing fetched twice")
    }

    @Test func aCorruptChunkIsFetchedAgainUnderBackPressure() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 12)
        let chunks = try #require(fixture.manifest.chunks)
        let bad = Int(chunks[3].offset + 10)
        let corrupt = try FaultServer(body: fixture.archive, faults: Array(repeating: .wrongByte(at: bad), count: 50))
        let good = try FaultServer(body: fixture.archive)
        defer { corrupt.stop(); good.stop() }
        let final = try await Self.download(fixture, [corrupt, good]) {
            $0.connections = 4
            $0.maxConnections = 4
            $0.frameMemoryBytes = 2 * FrameMemory.segmentBytes
        }
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        let refetched = corrupt.totalBodyBytesSent + good.totalBodyBytesSent - fixture.archive.count
        // The corrupt chunk again, plus the frames the dropped mirror had in flight on its other connections.
        let largest = Int(chunks.map(\.length).max()!)
        #expect(refetched <= corrupt.records.count * largest, "re-fetched \(refetched) bytes")
    }
}
