import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// `TransferSettings.proxy` reaches libcurl for the catalog and the archives: a plain HTTP proxy (the fault
/// server, which answers any target) sees absolute targets for hosts that do not even resolve, and a proxy
/// that is not listening fails the request naming it.
@Suite struct TransportProxyTests {
    @Test func catalogAndArchiveRequestsGoThroughTheProxy() async throws {
        let bytes = TestData.randomBytes(300 << 10, seed: 5)
        let proxy = try FaultServer(body: try TransportHeaderTests.catalogBytes(version: 2))
        defer { proxy.stop() }
        var transport = TransferSettings()
        transport.proxy = "http://127.0.0.1:\(proxy.port)"
        let catalogURL = "http://catalog.example.invalid/iap/catalog.json"
        let source = try await CatalogSource.load(catalogURL, transport: transport)
        #expect(source.catalog.catalogVersion == 2)
        #expect(proxy.records.map(\.target) == [catalogURL])
        #expect(proxy.records.first?.headers["host"] == "catalog.example.invalid")

        let archiveProxy = try FaultServer(body: bytes)
        defer { archiveProxy.stop() }
        var options = fastOptions()
        options.transfer.proxy = "http://127.0.0.1:\(archiveProxy.port)"
        let store = try makeStore()
        defer { store.remove() }
        let archiveURL = "http://cdn.example.invalid/archives/a.bin"
        let result = try await download(product("com.example.proxied", bytes: bytes), url: archiveURL, store: store, options: options)
        #expect(result.final?.state == .finished, "\(result.final?.error?.message ?? "")")
        #expect(archiveProxy.records.map(\.target) == [archiveURL])
    }

    @Test func aProxyThatIsNotListeningFailsNamingIt() async throws {
        let port = try FreePort.find()
        var transport = TransferSettings()
        transport.proxy = "http://user:secret@127.0.0.1:\(port)"
        transport.connectTimeout = 5
        let error = expectDownloadError(.catalog) {
            _ = try CatalogSource.load("http://catalog.example.invalid/catalog.json", transport: transport)
        }
        let message = error?.message ?? ""
        #expect(message.contains("(through the proxy http://127.0.0.1:\(port))"), "\(message)")
        #expect(!message.contains("secret"), "\(message)")

        var options = fastOptions(maxAttempts: 2)
        options.transfer = transport
        let store = try makeStore()
        defer { store.remove() }
        let bytes = TestData.randomBytes(1000)
        let result = try await download(
            product("com.example.unproxied", bytes: bytes), url: "http://cdn.example.invalid/a.bin", store: store, options: options)
        #expect(result.final?.state == .failed)
        let archiveMessage = result.final?.error?.message ?? ""
        #expect(archiveMessage.contains("(through the proxy http://127.0.0.1:\(port))"), "\(archiveMessage)")
        #expect(!archiveMessage.contains("secret"), "\(archiveMessage)")
    }
}
