import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// The service's request headers and User-Agent reach the server with the catalog and the archive requests,
/// after the module's own headers; a server that demands a token refuses requests without it.
@Suite struct TransportHeaderTests {
    static let token = "Authorization: Bearer s3cret"
    static let required = ["Authorization": "Bearer s3cret"]

    /// The bytes of an empty catalog of version `version`.
    static func catalogBytes(version: UInt64 = 1) throws -> [UInt8] {
        [UInt8](try Catalog(catalogVersion: version, products: []).encoded())
    }

    @Test func catalogRequestsCarryTheHeadersAndTheUserAgent() throws {
        let server = try FaultServer(body: try Self.catalogBytes(version: 3), requiredHeaders: Self.required)
        defer { server.stop() }
        let refused = expectDownloadError(.catalog) {
            _ = try CatalogSource.load(server.url("catalog.json"), transport: TransferSettings())
        }
        #expect(refused?.message.contains("HTTP 401") == true, "\(refused?.message ?? "")")

        var transport = TransferSettings()
        transport.headers = [Self.token, "X-Client: tests"]
        transport.userAgent = "mygame/2.0"
        let source = try CatalogSource.load(server.url("catalog.json"), transport: transport)
        #expect(source.catalog.catalogVersion == 3)
        let records = server.records
        #expect(records.map(\.status) == [401, 200])
        #expect(records.first?.headers["user-agent"] == TransferSettings.defaultUserAgent)
        #expect(records.last?.headers["authorization"] == "Bearer s3cret")
        #expect(records.last?.headers["x-client"] == "tests")
        #expect(records.last?.headers["user-agent"] == "mygame/2.0")
    }

    @Test func archiveRequestsCarryTheHeadersAfterTheModulesOwn() async throws {
        let bytes = TestData.randomBytes(768 << 10, seed: 19)
        // The first authorized request is cut short: the resumed one must carry Range and If-Range too.
        let server = try FaultServer(
            body: bytes, faults: [.none, .dropConnection(at: 256 << 10)], requiredHeaders: Self.required, lifetime: 120)
        defer { server.stop() }
        let store = try makeStore()
        defer { store.remove() }
        var options = fastOptions()
        let refused = try await download(product("com.example.denied", bytes: bytes), url: server.url(), store: store, options: options)
        #expect(refused.final?.state == .failed)
        #expect(refused.final?.error?.message.contains("HTTP 401") == true, "\(refused.final?.error?.message ?? "")")

        options.transfer.headers = [Self.token]
        options.transfer.userAgent = "mygame/2.0"
        let allowed = try await download(product("com.example.allowed", bytes: bytes), url: server.url(), store: store, options: options)
        #expect(allowed.final?.state == .finished, "\(allowed.final?.error?.message ?? "")")
        let records = server.records
        #expect(records.map(\.status) == [401, 200, 206])
        for record in records.dropFirst() {
            #expect(record.headers["authorization"] == "Bearer s3cret")
            #expect(record.headers["user-agent"] == "mygame/2.0")
            #expect(record.headers["accept-encoding"] == "identity")
        }
        #expect(records.last?.range == "bytes=\(256 << 10)-")
        #expect(records.last?.ifRange == "\"v1\"")
    }

    @Test("a header the module sets itself, or a malformed line, fails the request before anything is sent", arguments: [
        ("Range: bytes=0-", "Range is set by iapcontent itself"),
        ("accept-encoding: gzip", "accept-encoding is set by iapcontent itself"),
        ("Authorization Bearer s3cret", "is not one `Name: value` line"),
        ("X-One: 1\r\nX-Two: 2", "is not one `Name: value` line"),
    ])
    func refusedHeaders(_ header: String, _ reason: String) async throws {
        let server = try FaultServer(body: try Self.catalogBytes())
        defer { server.stop() }
        var options = fastOptions()
        options.transfer.headers = [header]
        let error = expectDownloadError(.catalog) {
            _ = try CatalogSource.load(server.url("catalog.json"), transport: options.transfer)
        }
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")

        let store = try makeStore()
        defer { store.remove() }
        let bytes = TestData.randomBytes(1000)
        let result = try await download(product("com.example.refused", bytes: bytes), url: server.url(), store: store, options: options)
        #expect(result.final?.state == .failed)
        #expect(result.final?.error?.message.contains(reason) == true, "\(result.final?.error?.message ?? "")")
        #expect(server.records.isEmpty)
    }
}
