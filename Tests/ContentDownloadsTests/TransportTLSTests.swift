import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// An https server with a private authority that checks client certificates: the CA file, the client
/// certificate and its key reach the catalog and the archive requests alike, in the library and the CLI.
@Suite("Transport: TLS", .serialized)
final class TransportTLSTests {
    let certificates: TestCertificates
    let nginx: Nginx
    let bytes = TestData.randomBytes(200 << 10, seed: 11)

    init() throws {
        certificates = try TestCertificates()
        nginx = try Nginx(tls: certificates)
        let entry = product("com.example.tls", bytes: bytes, path: "archives/tls.bin")
        let archives = nginx.root.appendingPathComponent("archives")
        try FileManager.default.createDirectory(at: archives, withIntermediateDirectories: true)
        try Data(bytes).write(to: archives.appendingPathComponent("tls.bin"))
        try Catalog(catalogVersion: 1, products: [entry]).encoded().write(to: nginx.root.appendingPathComponent("catalog.json"))
    }

    deinit {
        nginx.stop()
        certificates.remove()
    }

    var catalogURL: String { nginx.baseURL + "/catalog.json" }

    @Test func theCAFileAndClientCertificateReachCatalogAndArchive() async throws {
        var transport = TransferSettings()
        let untrusted = expectDownloadError(.catalog) { _ = try CatalogSource.load(catalogURL, transport: transport) }
        #expect(untrusted?.message.contains("network error 60") == true, "\(untrusted?.message ?? "")")
        transport.caFile = certificates.authority
        let anonymous = expectDownloadError(.catalog) { _ = try CatalogSource.load(catalogURL, transport: transport) }
        #expect(anonymous?.message.contains("HTTP 400") == true, "\(anonymous?.message ?? "")")  // no client certificate

        transport.clientCertificate = certificates.clientCertificate
        transport.clientKey = certificates.clientKey
        let source = try await CatalogSource.load(catalogURL, transport: transport)
        let entry = try source.product("com.example.tls")
        var options = fastOptions()
        options.transfer = transport
        let store = try makeStore()
        defer { store.remove() }
        let result = try await download(entry, url: source.archiveURL(for: entry), store: store, options: options)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        #expect(nginx.requests().map(\.status) == [400, 200, 200])
    }

    @Test func theCLIPresentsItsCertificate() async throws {
        let store = try TemporaryDirectory.make(prefix: "tls-store")
        defer { try? FileManager.default.removeItem(at: store) }
        let run = try await iapcontentOffPool([
            "download", "com.example.tls", "--catalog", catalogURL, "--store", store.path, "--no-install",
            "--ca-file", certificates.authority, "--cert", certificates.clientCertificate, "--key", certificates.clientKey,
        ])
        #expect(run.status == 0, "\(run.output)")
        let anonymous = try await iapcontentOffPool([
            "download", "com.example.tls", "--catalog", catalogURL, "--store", store.path, "--no-install",
            "--ca-file", certificates.authority,
        ])
        #expect(anonymous.status == 1, "\(anonymous.output)")
        #expect(anonymous.output.contains("HTTP 400"), "\(anonymous.output)")
    }
}
