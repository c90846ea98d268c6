import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Synchronization
import Testing
import TestSupport

/// `iapcontent serve --token-key` on a free port; stopped (SIGKILL) by ``stop()``.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    let folder: URL
    let baseURL: String

    init(root: URL, tokenKey: URL) throws {
        folder = try TemporaryDirectory.make(prefix: "serve")
        let out = folder.appendingPathComponent("out.txt")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        process.executableURL = try CommandRunner.builtExecutable()
        process.arguments = ["serve", root.path, "--port", "0", "--token-key", tokenKey.path]
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        var line = ""
        while Date() < deadline, process.isRunning {
            line = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").first.map(String.init) ?? ""
            if line.hasPrefix("http") { break }
            usleep(50_000)
        }
        guard line.hasPrefix("http") else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw TestSupportError("serve did not print its URL")
        }
        baseURL = line.hasSuffix("/") ? String(line.dropLast()) : line
    }

    deinit { stop() }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Purchaser tokens: the manager asks its authorizer before each request and once more after a 403/410.
@Suite(.serialized) struct TrustTokenTests {
    struct Setup {
        let root: URL
        let key: URLTokenKey
        let server: ServeProcess
        let product: CatalogProduct
        let bytes: [UInt8]
        var archiveURL: String { server.baseURL + "/" + product.path }
    }

    func setUp() throws -> Setup {
        let root = try TemporaryDirectory.make(prefix: "token-site")
        let key = URLTokenKey.generate()
        let keyFile = root.appendingPathComponent("token.key")
        try key.write(to: keyFile)
        let site = root.appendingPathComponent("site")
        let bytes = TestData.randomBytes(120_000, seed: 9)
        let sha = sha256Hex(bytes)
        try FileManager.default.createDirectory(at: site.appendingPathComponent("archives"), withIntermediateDirectories: true)
        try Data(bytes).write(to: site.appendingPathComponent("archives/\(sha).tar.zst"))
        let product = CatalogProduct(
            productID: "com.example.maps", contentVersion: ContentVersion("1.0")!, path: "archives/\(sha).tar.zst",
            length: Int64(bytes.count), sha256: sha, uncompressedSize: Int64(bytes.count), entryCount: 1)
        return Setup(root: root, key: key, server: try ServeProcess(root: site, tokenKey: keyFile), product: product, bytes: bytes)
    }

    @Test func forbiddenThenReauthorizedOnceSucceeds() async throws {
        let setup = try setUp()
        defer { setup.server.stop(); try? FileManager.default.removeItem(at: setup.root) }
        let store = try makeStore()
        defer { store.remove() }
        let calls = CallCounter()
        let signer = URLTokenSigner(key: setup.key)
        let manager = try DownloadManager(store: store, options: fastOptions())
        await manager.setArchiveURLAuthorizer { productID, url in
            let call = calls.next()
            // First answer: no token at all (the server says 403); then a real one.
            return call == 1 ? url : signer.sign(url: url, product: productID, expiresIn: 60)
        }
        try await manager.start()
        try await manager.enqueue(setup.product, url: setup.archiveURL, plan: .wholeArchive)
        let final = await runToEnd(manager, setup.product.productID).last
        #expect(final?.state == .finished)
        #expect(calls.count == 2)
        #expect(sha256Hex(file: store.archiveFile(productID: setup.product.productID, version: "1.0").path) == setup.product.sha256)
        // The journal keeps the catalog's URL, never a token.
        #expect(try store.ledger().record(setup.product.productID)?.url == setup.archiveURL)
    }

    @Test func expiredTokenTwiceFailsClearly() async throws {
        let setup = try setUp()
        defer { setup.server.stop(); try? FileManager.default.removeItem(at: setup.root) }
        let store = try makeStore()
        defer { store.remove() }
        let calls = CallCounter()
        let manager = try DownloadManager(store: store, options: fastOptions())
        let signer = URLTokenSigner(key: setup.key)
        await manager.setArchiveURLAuthorizer { productID, url in
            _ = calls.next()
            return signer.sign(url: url, product: productID, expiresIn: -120)  // already expired: 410
        }
        try await manager.start()
        try await manager.enqueue(setup.product, url: setup.archiveURL, plan: .wholeArchive)
        let final = await runToEnd(manager, setup.product.productID).last
        #expect(final?.state == .failed)
        #expect(final?.error?.code == .unauthorized)
        #expect(final?.error?.message.contains("410") == true)
        #expect(final?.error?.message.contains("expired") == true)
        #expect(calls.count == 2)
    }

    @Test func withoutAnAuthorizerA403IsFinal() async throws {
        let setup = try setUp()
        defer { setup.server.stop(); try? FileManager.default.removeItem(at: setup.root) }
        let store = try makeStore()
        defer { store.remove() }
        let result = try await download(setup.product, url: setup.archiveURL, store: store, options: fastOptions())
        #expect(result.final?.state == .failed)
        #expect(result.final?.error?.code == .httpStatus)
        #expect(result.record?.attempts == 1)
    }
}

/// Counts authorizer calls across tasks.
final class CallCounter: Sendable {
    private let value = Mutex(0)
    /// Adds one and returns the new count.
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}
