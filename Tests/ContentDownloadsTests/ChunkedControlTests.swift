import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Pause, resume and cancel keep their meaning for a download installed in place: a pause keeps what was
/// installed (durable) and the resume asks only for the rest; a cancel deletes the tree and the manifest.
@Suite("Chunked install: pause, resume, cancel")
struct ChunkedControlTests {
    /// Polls the manager's snapshot of `id` until `done` says so, for at most 90 s (a failure, not a hang, when it never does).
    static func wait(
        _ manager: DownloadManager, _ id: String, until done: (DownloadSnapshot) -> Bool
    ) async throws -> DownloadSnapshot? {
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            if let snapshot = await manager.snapshot(of: id), done(snapshot) { return snapshot }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// An 8 MiB chunk-indexed download whose first reply stops after 3 MiB and stays silent: however late a
    /// loaded pool runs the test task, the download is still running when it pauses or cancels. A resumed
    /// request gets the rest.
    static func startStalledDownload() async throws -> (ChunkedFixture, FaultServer, DownloadManager) {
        let fixture = try ChunkedFixture.standard(megabytes: 8)
        try fixture.keepManifest()
        let server = try FaultServer(body: fixture.archive, faults: [.stall(at: 3 << 20, seconds: 200)], lifetime: 240)
        var options = fastOptions(stall: 300)
        options.transfer.connections = 1  // one connection, stalled: the download is still running when it pauses
        options.transfer.maxConnections = 1
        let manager = try DownloadManager(store: fixture.store, options: options)
        try await manager.start()
        try await manager.enqueue(fixture.product(), url: server.url(), plan: .chunks)
        return (fixture, server, manager)
    }

    @Test func pauseKeepsWhatIsInstalledAndResumeFetchesTheRest() async throws {
        let (fixture, server, manager) = try await Self.startStalledDownload()
        defer { server.stop() }
        let id = fixture.manifest.productID
        #expect(try await Self.wait(manager, id) { $0.downloadedBytes > 1 << 20 } != nil)
        // `pauseAndWait` returns once the transfer has stopped (what the queue's `pause` does): frames received
        // before the pause may still be placed until then, so the snapshot to compare is the one after it.
        await manager.pauseAndWait(id)
        let paused = try #require(try await Self.wait(manager, id) { $0.state == .paused })
        // The offset is journaled when the transfer has stopped.
        var durable: Int64 = 0
        let deadline = Date().addingTimeInterval(30)
        while durable == 0, Date() < deadline {
            durable = try #require(try fixture.store.ledger().record(id)).durableOffset
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(durable > 0 && durable <= paused.downloadedBytes, "durable \(durable), paused at \(paused.downloadedBytes)")

        await manager.resume(id)
        let finished = try #require(try await Self.wait(manager, id) { !$0.state.isInFlight && $0.state != .paused })
        #expect(finished.state == .finished, "\(finished.error?.message ?? "")")
        await manager.shutdown()
        // The resumed request starts at a chunk the pause had not placed: only the frame in flight came twice.
        let resumedAt = try #require(server.records.last?.range.flatMap { Int64($0.dropFirst("bytes=".count).split(separator: "-").first!) })
        #expect(fixture.manifest.chunks!.contains { $0.offset == resumedAt && $0.offset >= durable }, "resumed at \(resumedAt)")
        #expect(server.totalBodyBytesSent - fixture.archive.count <= Int(fixture.manifest.chunks!.map(\.length).max()!))
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
    }

    @Test func cancelDeletesTheTreeAndTheManifest() async throws {
        let (fixture, server, manager) = try await Self.startStalledDownload()
        defer { server.stop() }
        let id = fixture.manifest.productID
        #expect(try await Self.wait(manager, id) { $0.downloadedBytes > 1 << 20 } != nil)
        await manager.cancel(id)
        let cancelled = try #require(try await Self.wait(manager, id) { $0.state == .cancelled })
        #expect(cancelled.downloadedBytes == 0)
        await manager.shutdown()
        let tree = fixture.tree.path
        #expect(!FileManager.default.fileExists(atPath: tree))
        #expect(!FileManager.default.fileExists(atPath: tree + ".placed"))
        #expect(!FileManager.default.fileExists(atPath: tree + ".delta"))
        let manifest = fixture.store.manifestFile(productID: id, version: fixture.manifest.contentVersion.description).path
        #expect(!FileManager.default.fileExists(atPath: manifest))
    }
}
