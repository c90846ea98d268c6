import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A mirror dropped for refusing (429/503 three times) is left alone by the next downloads of the same engine (the
/// daemon's) for a bounded time, then tried again.
@Suite("Chunk scheduler: a refusing mirror remembered")
struct RefusingMirrorMemoryTests {
    /// Archive requests `server` answered, its `HEAD` probe for several ranges aside (a probe is not a refusal).
    static func archiveRequests(_ server: FaultServer) -> Int { server.records.filter { $0.range != "bytes=0-0,2-2" }.count }

    @Test func theNextDownloadLeavesAMirrorThatKeptRefusingAlone() async throws {
        let first = try ChunkedFixture.standard(megabytes: 4)
        let second = try ChunkedFixture(productID: "com.example.second", files: [
            "Contents/readme.txt": Data("second\n".utf8),
            "Contents/art/big.bin": PackageFixture.bytes(count: 3 << 20, seed: 11),
        ], store: first.store)
        try first.keepManifest()
        try second.keepManifest()
        let refusing = try FaultServer(body: first.archive, faults: Array(repeating: .status(503, retryAfter: 0), count: 50))
        let good = try FaultServer(body: first.archive, chunkDelay: 0.002)
        let goodSecond = try FaultServer(body: second.archive, chunkDelay: 0.002)
        defer { refusing.stop(); good.stop(); goodSecond.stop() }
        var options = fastOptions()
        options.transfer.connections = 4
        let manager = try DownloadManager(store: first.store, options: options)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            await manager.shutdown()
        }
        defer { watchdog.cancel() }
        try await manager.start()
        /// The first terminal snapshot of `id` in `updates` (nil: the watchdog ended the manager).
        func end(of id: String, in updates: some AsyncSequence<DownloadSnapshot, Never>) async -> DownloadSnapshot? {
            for await snapshot in updates where snapshot.productID == id && !snapshot.state.isInFlight { return snapshot }
            return nil
        }

        let firstUpdates = manager.updates
        try await manager.enqueue(first.product(), candidates: [refusing.url(), good.url()], catalogURL: nil, plan: .chunks)
        let firstEnd = await end(of: first.manifest.productID, in: firstUpdates)
        #expect(firstEnd?.state == .finished, "\(firstEnd?.error?.message ?? "")")
        let refusedFirst = Self.archiveRequests(refusing)
        #expect(refusedFirst == 3, "the first download asks three times, then drops it")

        let secondUpdates = manager.updates
        try await manager.enqueue(second.product(), candidates: [refusing.url(), goodSecond.url()], catalogURL: nil, plan: .chunks)
        let secondEnd = await end(of: second.manifest.productID, in: secondUpdates)
        await manager.shutdown()
        #expect(secondEnd?.state == .finished, "\(secondEnd?.error?.message ?? "")")
        #expect(try diffTrees(second.folder, second.tree).status == 0)
        #expect(Self.archiveRequests(refusing) == refusedFirst,
                "the next download does not ask it again: \(refusing.records.map { $0.range ?? "-" })")
        #expect(goodSecond.totalBodyBytesSent == second.archive.count, "the other mirror serves it all, once")
    }

    @Test func aRefusingMirrorIsRememberedForABoundedTime() {
        let memory = RefusingMirrors(restSeconds: 300)
        memory.remember("http://127.0.0.1:8080/archives/a.tar.zst", now: 100)
        #expect(memory.isResting("HTTP://127.0.0.1:8080/archives/b.tar.zst", now: 100), "by origin, for every archive")
        #expect(memory.isResting("http://127.0.0.1:8080/x", now: 399.9))
        #expect(!memory.isResting("http://127.0.0.1:8081/x", now: 200), "another origin is not")
        #expect(!memory.isResting("http://127.0.0.1:8080/x", now: 400), "tried again once its time is up")
        let off = RefusingMirrors(restSeconds: 0)
        off.remember("http://127.0.0.1:8080/a", now: 100)
        #expect(!off.isResting("http://127.0.0.1:8080/a", now: 100), "0: remembers nothing")
    }
}
