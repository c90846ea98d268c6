import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The URL rule, tried as a hostile catalog would: a catalog fetched over http names archives, mirrors and
/// redirects that lead to the client's own disk (`file://`) or to local services through other protocols
/// (`gopher://`, `dict://`, `ftp://`). Each download fails with a clear reason, nothing is installed, no local file
/// is read into the store, and the local listener standing in for a service sees no connection.
@Suite("Hostile URLs")
struct HostileURLTests {
    static let productID = "com.example.hostile.urls"

    /// A loopback TCP listener that never accepts while the test runs: connections a client made wait in its
    /// backlog, and ``connections()`` counts them afterwards (without blocking).
    final class CountingListener {
        let fd: Int32
        let port: Int

        init() throws {
            let (listener, port) = try LoopbackListener.open(backlog: 64)
            _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
            fd = listener
            self.port = port
        }

        deinit { close(fd) }

        /// Connections made so far (each accepted and closed).
        func connections() -> Int {
            var count = 0
            while count < 1000 {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { break }
                close(client)
                count += 1
            }
            return count
        }
    }

    /// Publishes one small product over nginx, lets `change` edit its catalog entry and the catalog (the archive and
    /// manifest also copied to `local/`, a folder on the client's disk), and downloads it. Returns the run, the store
    /// and the local copy of the archive.
    static func download(
        chunked: Bool = false,
        _ change: (inout Catalog, Int, _ localArchive: URL, _ localFolder: URL, _ site: URL) throws -> Void
    ) async throws -> (run: (status: Int32, output: String), store: Store, fixture: QueueFixture) {
        let fixture = try QueueFixture()
        let folder = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/urls"), productID: productID,
            files: ["Contents/data.bin": PackageFixture.bytes(count: 96 << 10, seed: 7)])
        var catalog = try fixture.publish([folder], chunked: chunked)
        let index = try #require(catalog.products.firstIndex { $0.productID == productID })
        let local = fixture.root.appendingPathComponent("local", isDirectory: true)
        try FileManager.default.createDirectory(at: local.appendingPathComponent("archives"), withIntermediateDirectories: true)
        let archive = local.appendingPathComponent(catalog.products[index].path)
        try FileManager.default.createDirectory(at: archive.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture.nginx.root.appendingPathComponent(catalog.products[index].path), to: archive)
        try change(&catalog, index, archive, local, fixture.nginx.root)
        try catalog.encoded().write(to: fixture.nginx.root.appendingPathComponent("catalog.json"))
        let store = fixture.root.appendingPathComponent("store").path
        let run = try await iapcontentOffPool(["download", productID, "--catalog", fixture.catalogURL, "--store", store], timeout: 120)
        return (run, try Store(root: URL(fileURLWithPath: store)), fixture)
    }

    @Test("an http catalog's archive URL of file:// is not read from the client's disk")
    func fileArchiveURLIsRefused() async throws {
        let (run, store, fixture) = try await Self.download { catalog, index, archive, _, _ in
            catalog.products[index].url = archive.absoluteString
            catalog.products[index].path = "archives/missing.tar.zst"  // the honest copy is gone: only the file URL holds it
        }
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("is not allowed") && run.output.contains("http or https URLs only"), "\(run.output)")
        #expect(store.contentURL(forProductID: Self.productID) == nil, "installed from the client's own disk")
        withExtendedLifetime(fixture) {}  // its folder holds the store until here
    }

    @Test("an http catalog's file:// mirror is not read; the http origin still serves")
    func fileMirrorIsLeftOut() async throws {
        let (run, store, fixture) = try await Self.download { catalog, _, _, local, _ in
            catalog.baseURLs = [local.absoluteString]
        }
        #expect(run.status == 0, "\(run.output)")
        #expect(store.contentURL(forProductID: Self.productID) != nil, "\(run.output)")
        withExtendedLifetime(fixture) {}  // its folder holds the store until here
    }

    @Test("a manifest at a file:// mirror of an http catalog is not read from disk", arguments: [true])
    func fileManifestMirrorIsRefused(_ chunked: Bool) async throws {
        let (run, store, fixture) = try await Self.download(chunked: chunked) { catalog, index, _, local, site in
            let manifest = try #require(catalog.products[index].manifest)
            try FileManager.default.createDirectory(
                at: local.appendingPathComponent(manifest.path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: site.appendingPathComponent(manifest.path), to: local.appendingPathComponent(manifest.path))
            try FileManager.default.removeItem(at: site.appendingPathComponent(manifest.path))
            catalog.baseURLs = [local.absoluteString]
        }
        // The manifest is missing over http and refused from disk: the archive comes whole, verified by its hash.
        #expect(run.status == 0, "\(run.output)")
        #expect(store.contentURL(forProductID: Self.productID) != nil)
        let kept = try FileManager.default.contentsOfDirectory(atPath: store.root.appendingPathComponent("transfers").path)
        #expect(!kept.contains { $0.hasSuffix(".manifest") || $0.hasSuffix(".manifest.json") }, "a manifest was read from disk: \(kept)")
        withExtendedLifetime(fixture) {}  // its folder holds the store until here
    }

    @Test("gopher://, dict:// and ftp:// archive URLs never reach a local service", arguments: ["gopher", "dict", "ftp"])
    func otherProtocolsAreRefused(_ scheme: String) async throws {
        let listener = try CountingListener()
        let (run, store, fixture) = try await Self.download { catalog, index, _, _, _ in
            catalog.products[index].url = "\(scheme)://127.0.0.1:\(listener.port)/_SET%20pwned%201%0D%0A"
            catalog.products[index].path = "archives/missing.tar.zst"
        }
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("is not allowed"), "\(run.output)")
        #expect(listener.connections() == 0, "the local service was reached")
        #expect(store.contentURL(forProductID: Self.productID) == nil)
        withExtendedLifetime(fixture) {}  // its folder holds the store until here
    }

    @Test("a mirror's redirect to ftp:// or file:// is not followed", arguments: ["ftp", "file"])
    func redirectsStayOnHTTP(_ scheme: String) async throws {
        let listener = try CountingListener()
        var server: FaultServer?
        let (run, store, fixture) = try await Self.download { catalog, index, archive, _, _ in
            let target = scheme == "file" ? archive.absoluteString : "ftp://127.0.0.1:\(listener.port)/x"
            let redirecting = try FaultServer(body: [], faults: Array(repeating: .redirect(target), count: 20), lifetime: 60)
            server = redirecting
            catalog.products[index].url = redirecting.url("archive.tar.zst")
            catalog.products[index].path = "archives/missing.tar.zst"
        }
        server?.stop()
        #expect(run.status != 0, "\(run.output)")
        #expect(listener.connections() == 0, "the redirect was followed")
        #expect(store.contentURL(forProductID: Self.productID) == nil, "installed through a redirect to \(scheme)")
        withExtendedLifetime(fixture) {}  // its folder holds the store until here
    }

    @Test("a local catalog's archive must be a regular file: a FIFO or /dev/zero fails at once in words")
    func localArchiveMustBeARegularFile() async throws {
        for special in ["fifo", "/dev/zero"] {
            let directory = try TemporaryDirectory()
            let packed = directory.appending("packed"), site = directory.appending("site")
            let folder = try PackageFixture.make(
                at: directory.appending("src"), productID: Self.productID, files: ["Contents/a.bin": PackageFixture.bytes(count: 4096, seed: 1)])
            _ = try Packer().pack(folder: folder, outputDirectory: packed)
            let catalog = try CatalogBuilder(inputDirectory: packed, outputDirectory: site, catalogVersion: 1).build().catalog
            let archive = site.appendingPathComponent(catalog.products[0].path)
            try FileManager.default.removeItem(at: archive)
            if special == "fifo" {
                #expect(mkfifo(archive.path, 0o644) == 0)
            } else {
                try FileManager.default.createSymbolicLink(atPath: archive.path, withDestinationPath: special)
            }
            let store = directory.appending("store").path
            let run = try await iapcontentOffPool(["download", Self.productID, "--catalog", site.appendingPathComponent("catalog.json").path, "--store", store], timeout: 60)
            #expect(run.status != 0, "\(special): \(run.output)")
            #expect(run.output.contains("must be a regular file"), "\(special): \(run.output)")
        }
    }
}
