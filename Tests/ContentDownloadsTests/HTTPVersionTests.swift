import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// `TransferSettings.httpVersion`: a chunk plan's requests go out as HTTP/1.1 by default and as HTTP/2 streams
/// when asked, against a real nginx over TLS (HTTP/2 agreed by ALPN) that logs the protocol of each request.
@Suite("HTTP version")
struct HTTPVersionTests {
    /// Downloads the standard package with `version` from an nginx serving TLS (and HTTP/2 when `http2`); the
    /// protocols of the archive requests it logged.
    static func protocols(http2: Bool, version: HTTPVersion) async throws -> (final: DownloadSnapshot?, protocols: Set<String>, fixture: ChunkedFixture) {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let fixture = try ChunkedFixture.standard(megabytes: 8)
        let nginx = try Nginx(tls: certificates, http2: http2)
        defer { nginx.stop() }
        try Data(fixture.archive).write(to: nginx.root.appendingPathComponent("archive.bin"))
        try fixture.keepManifest()
        var options = fastOptions()
        options.transfer.caFile = certificates.authority
        options.transfer.clientCertificate = certificates.clientCertificate
        options.transfer.clientKey = certificates.clientKey
        options.transfer.httpVersion = version
        options.transfer.connections = 4
        let result = try await download(
            fixture.product(), url: "\(nginx.baseURL)/archive.bin", store: fixture.store, options: options, plan: .chunks)
        let archiveRequests = nginx.requests().filter { $0.request.contains("/archive.bin") }
        return (result.final, Set(archiveRequests.compactMap { $0.request.split(separator: " ").last.map(String.init) }), fixture)
    }

    @Test func http11ByDefaultEvenWhereTheServerOffersHTTP2() async throws {
        let run = try await Self.protocols(http2: true, version: TransferSettings().httpVersion)
        #expect(run.final?.state == .finished, "\(run.final?.error?.message ?? "")")
        #expect(run.protocols == ["HTTP/1.1"])
        #expect(try diffTrees(run.fixture.folder, run.fixture.tree).status == 0)
    }

    @Test func http2StartsWithTwiceTheStreamsWithinTheMaximum() {
        var settings = TransferSettings()
        settings.connections = 4
        settings.maxConnections = 16
        #expect(settings.initialConnections == 4)
        settings.httpVersion = .http2
        #expect(settings.initialConnections == 8)
        settings.maxConnections = 6
        #expect(settings.initialConnections == 6)
    }

    @Test func http2StreamsWhenAsked() async throws {
        let run = try await Self.protocols(http2: true, version: .http2)
        #expect(run.final?.state == .finished, "\(run.final?.error?.message ?? "")")
        #expect(run.protocols == ["HTTP/2.0"])
        #expect(try diffTrees(run.fixture.folder, run.fixture.tree).status == 0)
    }
}
