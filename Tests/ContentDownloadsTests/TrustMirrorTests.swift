import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A catalog's mirrors: fail over on errors, keep the bytes (content-addressed), remember what worked.
@Suite(.serialized) struct TrustMirrorTests {
    /// Runs one product through a fresh manager with the catalog's candidates.
    func run(_ product: CatalogProduct, source: CatalogSource, store: Store, options: DownloadOptions = fastOptions())
        async throws -> DownloadSnapshot?
    {
        let manager = try DownloadManager(store: store, options: options)
        try await manager.start()
        try await manager.enqueue(
            product, candidates: source.archiveURLCandidates(for: product), catalogURL: source.location.absoluteString, plan: .wholeArchive)
        return await runToEnd(manager, product.productID).last
    }

    @Test func failsOverFromA503MirrorAndRemembersTheOneThatWorked() async throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        let broken = try FaultServer(body: [], faults: Array(repeating: .status(503, retryAfter: nil), count: 40), lifetime: 60)
        defer { broken.stop() }
        let first = try site.addArchive("com.example.a", bytes: TestData.randomBytes(200_000, seed: 1))
        let second = try site.addArchive("com.example.b", bytes: TestData.randomBytes(150_000, seed: 2))
        try site.publish(
            version: 1, products: [first, second],
            baseURLs: ["http://127.0.0.1:\(broken.port)/", site.nginx.baseURL + "/"], signer: site.key)
        let source = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        #expect(source.archiveURLCandidates(for: first).first?.contains(":\(broken.port)/") == true)

        let a = try await run(first, source: source, store: store)
        #expect(a?.state == .finished)
        #expect(sha256Hex(file: store.archiveFile(productID: first.productID, version: "1.0").path) == first.sha256)
        #expect(broken.records.count == 1)  // a 5xx fails over at once, no retries against a dead mirror
        #expect(site.requests(for: "/\(first.path)").count == 1)
        let origin = try store.journal().preferredMirror(catalogURL: site.catalogURL)
        #expect(origin == site.nginx.baseURL)

        // Next run: the remembered mirror first; the broken one is not asked at all.
        let b = try await run(second, source: source, store: store)
        #expect(b?.state == .finished)
        #expect(broken.records.count == 1)
        #expect(site.requests(for: "/\(second.path)").count == 1)
    }

    @Test func failsOverFromADeadPort() async throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        let dead = try FreePort.find()  // nothing listens there
        let product = try site.addArchive("com.example.a", bytes: TestData.randomBytes(100_000, seed: 3))
        try site.publish(
            version: 1, products: [product], baseURLs: ["http://127.0.0.1:\(dead)/", site.nginx.baseURL + "/"], signer: nil)
        let source = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [], store: store)
        let final = try await run(product, source: source, store: store)
        #expect(final?.state == .finished)
        let record = try #require(try store.ledger().record(product.productID))
        #expect(record.url.hasPrefix(site.nginx.baseURL))
        #expect(record.attempts == 0)
    }

    @Test func bytesFromOneMirrorAreKeptOnTheNext() async throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        let bytes = TestData.randomBytes(600_000, seed: 4)
        let product = try site.addArchive("com.example.a", bytes: bytes)
        // Mirror A has the file, drops the connection after 300 kB, then only answers 503.
        let flaky = try FaultServer(
            body: bytes, faults: [.dropConnection(at: 300_000)] + Array(repeating: .status(503, retryAfter: nil), count: 40),
            lifetime: 60)
        defer { flaky.stop() }
        try site.publish(
            version: 1, products: [product],
            baseURLs: ["http://127.0.0.1:\(flaky.port)/", site.nginx.baseURL + "/"], signer: site.key)
        let source = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)

        let final = try await run(product, source: source, store: store)
        #expect(final?.state == .finished)
        #expect(sha256Hex(file: store.archiveFile(productID: product.productID, version: "1.0").path) == product.sha256)
        let onB = site.requests(for: "/\(product.path)")
        #expect(onB.count == 1)
        let request = try #require(onB.first)
        // A plain Range continuing A's bytes, without A's ETag (B's would differ).
        #expect(request.range.hasPrefix("bytes=") && request.range != "bytes=0-")
        #expect(request.ifRange == "-" || request.ifRange.isEmpty)
        #expect(request.bodyBytesSent < bytes.count)
        #expect(flaky.totalBodyBytesSent + request.bodyBytesSent >= bytes.count)
    }
}
