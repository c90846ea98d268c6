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
