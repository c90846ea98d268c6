import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// One engine (a ``DownloadManager``, as the daemon's queue holds one) running several chunk-indexed downloads in
/// turn, for the tests of what it remembers about a refusing mirror: two products in one store, each served whole by
/// its own healthy mirror.
struct RefusingMirrorFixture {
    let first: ChunkedFixture
    let second: ChunkedFixture
    let manager: DownloadManager
    /// Ends the manager if a test hangs.
    let watchdog: Task<Void, any Error>

    /// Both products' manifests kept; a manager with `restSeconds` of memory for refusing mirrors, started.
    init(restSeconds: Double = 300) async throws {
        first = try ChunkedFixture.standard(megabytes: 4)
        second = try ChunkedFixture(productID: "com.example.second", files: [
            "Contents/readme.txt": Data("second\n".utf8),
            "Contents/art/big.bin": PackageFixture.bytes(count: 3 << 20, seed: 11),
        ], store: first.store)
        try first.keepManifest()
        try second.keepManifest()
        var options = fastOptions()
        options.transfer.connections = 4
        options.transfer.refusingMirrorRestSeconds = restSeconds
        let manager = try DownloadManager(store: first.store, options: options)
        self.manager = manager
        watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            await manager.shutdown()
        }
        try await manager.start()
    }

    /// Downloads `fixture`'s product from `mirrors` (in that order) and waits for its end: its last snapshot (`nil`
    /// when the watchdog ended the manager).
    func download(_ fixture: ChunkedFixture, from mirrors: [FaultServer]) async throws -> DownloadSnapshot? {
        let updates = manager.updates
        try await manager.enqueue(fixture.product(), candidates: mirrors.map { $0.url() }, catalogURL: nil, plan: .chunks)
        for await snapshot in updates where snapshot.productID == fixture.manifest.productID && !snapshot.state.isInFlight {
            return snapshot
        }
        return nil
    }

    /// The first product from `refusing` and a healthy mirror (dropping `refusing` after its three refusals), then,
    /// 1.5 s later, the second product from `refusing` and another healthy mirror; ends the manager. Returns the
    /// second download's end and its healthy mirror (stopped: its records stay).
    func twoDownloadsBeside(_ refusing: FaultServer) async throws -> (secondEnd: DownloadSnapshot?, goodSecond: FaultServer) {
        let good = try FaultServer(body: first.archive, chunkDelay: 0.002)
        let goodSecond = try FaultServer(body: second.archive, chunkDelay: 0.002)
        defer { good.stop(); goodSecond.stop() }
        let firstEnd = try await download(first, from: [refusing, good])
        #expect(firstEnd?.state == .finished, "\(firstEnd?.error?.message ?? "")")
        #expect(Self.archiveRequests(refusing).count == 3)
        try await Task.sleep(for: .seconds(1.5))
        let secondEnd = try await download(second, from: [refusing, goodSecond])
        await stop()
        #expect(secondEnd?.state == .finished, "\(secondEnd?.error?.message ?? "")")
        #expect(try diffTrees(second.folder, second.tree).status == 0)
        return (secondEnd, goodSecond)
    }

    /// Ends the manager and the watchdog.
    func stop() async {
        await manager.shutdown()
        watchdog.cancel()
    }

    /// Archive requests `server` answered, a `HEAD` probe for several ranges aside (a probe is not a refusal).
    static func archiveRequests(_ server: FaultServer) -> [FaultServer.Record] {
        server.records.filter { $0.range != "bytes=0-0,2-2" }
    }
}
