import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Content folders packed and published by a real nginx, and a store: the queue's end-to-end world.
final class QueueFixture: @unchecked Sendable {
    let root: URL
    let nginx: Nginx
    var store: Store
    var catalogVersion: UInt64 = 1

    /// `locationConfig` goes into nginx's `location /` (e.g. `limit_rate 1m;`), `httpConfig` into its `http` block.
    init(locationConfig: String = "", httpConfig: String = "", store: URL? = nil) throws {
        root = try TemporaryDirectory.make(prefix: "queue")
        nginx = try Nginx(locationConfig: locationConfig, httpConfig: httpConfig)
        self.store = try Store(root: store ?? root.appendingPathComponent("store", isDirectory: true))
    }

    deinit {
        nginx.stop()
        try? FileManager.default.removeItem(at: root)
    }

    var catalogURL: String { nginx.baseURL + "/catalog.json" }

    /// Writes a content folder `sources/<id>-<version>` with a few files (`size` incompressible bytes in one).
    func source(_ productID: String, version: String, size: Int = 64 << 10) throws -> URL {
        let folder = root.appendingPathComponent("sources/\(productID)-\(version)", isDirectory: true)
        try PackageFixture.make(at: folder, productID: productID, version: version, files: [
            "Contents/version.txt": Data("\(productID) \(version)\n".utf8),
            "Contents/levels/1.json": Data("{\"level\": 1, \"version\": \"\(version)\"}".utf8),
            "Contents/art/blob.bin": PackageFixture.bytes(count: size, seed: UInt64(size) &+ UInt64(version.count)),
        ])
        return folder
    }

    /// Packs the folders (chunk-indexed when `chunked`) and publishes them (with every earlier archive) as the
    /// catalog nginx serves.
    @discardableResult
    func publish(
        _ folders: [URL], signingKey: SigningKey? = nil, catalogVersion explicit: UInt64? = nil, chunked: Bool = false
    ) throws -> Catalog {
        let packed = root.appendingPathComponent("packed", isDirectory: true)
        for folder in folders {
            _ = try Packer(chunked: chunked).pack(folder: folder, outputDirectory: packed)
        }
        catalogVersion = explicit ?? catalogVersion + 1
        return try CatalogBuilder(
            inputDirectory: packed, outputDirectory: nginx.root, catalogVersion: catalogVersion, signingKey: signingKey
        ).build().catalog
    }

    /// The catalog as a client loads it.
    func catalog() throws -> CatalogSource { try CatalogSource.load(catalogURL) }

    /// A queue on the store with fast retries and no space margin beyond the payload.
    func queue(catalog: CatalogSource? = nil) throws -> ContentQueue {
        try ContentQueue(
            store: store, catalog: catalog ?? self.catalog(), options: fastOptions(),
            installOptions: ContentInstaller.Options(spacePreflight: SpacePreflight(marginFraction: 0, marginBytes: 0)))
    }

    /// Folder names left in `staging/` (must be none after recovery).
    func stagingLeftovers() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store.stagingDirectory.path)) ?? []
    }
}

/// `diff -r a b` exit status (0 = identical trees).
func diffTrees(_ a: URL, _ b: URL) throws -> CommandRunner.Result {
    try CommandRunner.run("/usr/bin/diff", ["-r", a.path, b.path])
}

/// Follows `queue.updates` until every listed transaction's downloads have stopped (or `timeout`),
/// re-reading the queue's current state on each update. Returns the transactions as they end.
func waitForDownloads(
    _ queue: ContentQueue, _ transactionIDs: [String], timeout: Double = 120,
    until done: @escaping @Sendable (ContentDownload) -> Bool = { !$0.state.isInFlight }
) async -> [String: ContentTransaction] {
    func current() async -> [String: ContentTransaction] {
        var result: [String: ContentTransaction] = [:]
        for id in transactionIDs { if let t = await queue.transaction(id: id) { result[id] = t } }
        return result
    }
    func complete(_ transactions: [String: ContentTransaction]) -> Bool {
        transactions.count == transactionIDs.count && transactions.values.allSatisfy { $0.downloads.allSatisfy(done) }
    }
    let updates = queue.updates  // first: a change while the state is read is still in it
    var latest = await current()
    if complete(latest) { return latest }
    let watchdog = Task {
        try await Task.sleep(for: .seconds(timeout))
        await queue.close()  // ends the stream: the caller's expectations then fail with the last state
    }
    defer { watchdog.cancel() }
    for await _ in updates {
        latest = await current()
        if complete(latest) { break }
    }
    return latest
}
