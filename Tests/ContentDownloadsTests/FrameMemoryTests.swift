import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Synchronization
import Testing
import TestSupport

/// The engine's frame memory: connections admit each frame within one budget and pause when it does not fit;
/// frames a verifier gives back wake the engine; a frame larger than the budget goes alone; the smaller budget
/// holds while the verifiers are the bottleneck. A download completes under any budget, and a bad frame is still
/// fetched again.
@Suite("Chunk scheduler: frame memory")
struct FrameMemoryTests {
    final class Owner {}

    /// A frame of `segments` segments, filled.
    static func frame(_ memory: FrameMemory, _ segments: Int) -> SegmentedFrame {
        var frame = SegmentedFrame()
        frame.admitted = segments
        for _ in 0..<segments { frame.append(memory.segment()) }
        return frame
    }

    @Test func admitsWithinTheBudgetAndWakesTheLoopWhenAFrameComesBack() {
        let wakes = Atomic(0)
        let memory = FrameMemory(budgetBytes: 4 * FrameMemory.segmentBytes, queuedBytes: 4 * FrameMemory.segmentBytes, wake: {
            wakes.add(1, ordering: .relaxed)
        })
        let first = Owner(), second = Owner(), third = Owner()
        #expect(memory.admit(2, at: 0, for: first) && memory.admit(2, at: 10, for: second))
        let frame = Self.frame(memory, 2)
        memory.handOver(frame)
        #expect(!memory.admit(1, at: 20, for: third), "the budget is spent")
        #expect(!memory.mayResume(1, at: 20, for: third))
        memory.giveBack(frame, handedOver: true)
        #expect(wakes.load(ordering: .relaxed) == 1, "the refusal wakes the loop once the frame is back")
        #expect(memory.mayResume(1, at: 20, for: third))
        #expect(memory.admit(1, at: 20, for: third))
        #expect(memory.usage.admitted == 3)
        memory.giveBack(nil, handedOver: false, unused: 3)
        #expect(wakes.load(ordering: .relaxed) == 1, "nobody was refused since")
        #expect(memory.usage.admitted == 0 && memory.usage.inUse == 0)
    }

    @Test func aFrameLargerThanTheBudgetGoesAloneAndRefusedFramesGoInArchiveOrder() {
        let memory = FrameMemory(budgetBytes: 2 * FrameMemory.segmentBytes, queuedBytes: 2 * FrameMemory.segmentBytes, wake: {})
        let small = Owner(), large = Owner(), later = Owner()
        #expect(memory.admit(1, at: 0, for: small))
        #expect(!memory.admit(2, at: 900, for: later), "no room beside the frame admitted")
        #expect(!memory.admit(5, at: 300, for: large), "does not fit beside another frame")
        memory.giveBack(nil, handedOver: false, unused: 1)
        #expect(!memory.mayResume(2, at: 900, for: later), "it would fit, but a frame earlier in the archive waits")
        #expect(memory.mayResume(5, at: 300, for: large))
        #expect(memory.admit(5, at: 300, for: large), "alone it goes, past the budget")
        #expect(!memory.admit(2, at: 900, for: later))
        memory.giveBack(nil, handedOver: false, unused: 5)
        #expect(memory.admit(2, at: 900, for: later))
        memory.releaseFree()
    }

    @Test func theSmallerBudgetHoldsWhileTheVerifiersAreTheBottleneck() {
        let now = Mutex(100.0)
        let memory = FrameMemory(
            budgetBytes: 8 * FrameMemory.segmentBytes, queuedBytes: 2 * FrameMemory.segmentBytes, clock: { now.withLock { $0 } }, wake: {})
        let first = Owner(), second = Owner()
        #expect(memory.admit(2, at: 0, for: first))
        #expect(!memory.admit(2, at: 10, for: second), "a download starts within the smaller budget")
        let frame = Self.frame(memory, 2)
        memory.handOver(frame)
        memory.giveBack(frame, handedOver: true)
        now.withLock { $0 += 2 }  // the verifiers idle for two seconds: the network is the bottleneck
        #expect(memory.admit(2, at: 10, for: second) && memory.admit(4, at: 20, for: first))
        let third = Owner()
        #expect(!memory.admit(3, at: 30, for: third), "past the whole budget")
        memory.forget(third)
        memory.giveBack(nil, handedOver: false, unused: 6)
        let queued = Self.frame(memory, 1)
        #expect(memory.admit(1, at: 40, for: first))
        memory.handOver(queued)
        now.withLock { $0 += 2 }  // a frame waits for a verifier for two seconds
        #expect(!memory.admit(2, at: 50, for: second), "back to the smaller budget")
        memory.giveBack(queued, handedOver: true)
    }

    @Test func segmentsBeyondTheSmallerBudgetGoBackToTheKernel() {
        let now = Mutex(100.0)
        let memory = FrameMemory(
            budgetBytes: 8 * FrameMemory.segmentBytes, queuedBytes: 2 * FrameMemory.segmentBytes, clock: { now.withLock { $0 } }, wake: {})
        now.withLock { $0 += 2 }  // the network is the bottleneck: the whole budget serves
        let owner = Owner()
        #expect(memory.admit(6, at: 0, for: owner))
        let frame = Self.frame(memory, 6)
        #expect(memory.usage.inUse == 6)
        memory.giveBack(frame, handedOver: false)
        #expect(memory.usage.kept == 2, "kept for reuse: what the verifiers cycle through; the rest is unmapped")
        #expect(memory.admit(3, at: 10, for: owner))
        let next = Self.frame(memory, 3)  // two reused, one mapped anew
        #expect(memory.usage.kept == 0 && memory.usage.inUse == 3)
        memory.giveBack(next, handedOver: false)
        #expect(memory.usage.kept == 2)
        memory.releaseFree()
        #expect(memory.usage.kept == 0)
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
            $0.queuedFrameMemoryBytes = FrameMemory.segmentBytes
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
            $0.queuedFrameMemoryBytes = 2 * FrameMemory.segmentBytes
        }
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        let refetched = corrupt.totalBodyBytesSent + good.totalBodyBytesSent - fixture.archive.count
        // The corrupt chunk again, plus the frames the dropped mirror had in flight on its other connections.
        let largest = Int(chunks.map(\.length).max()!)
        #expect(refetched <= corrupt.records.count * largest, "re-fetched \(refetched) bytes")
    }
}
