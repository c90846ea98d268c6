@testable import ContentDownloads
import Foundation
import Testing
import TestSupport

/// The repository client's requests against servers that fail: a moment's 503 or dropped connection is tried
/// again, a server that keeps failing is an error naming the file; hostile URLs and product IDs are refused.
@Suite("TUF client: requests to a failing or hostile server")
struct TUFFetchTests {
    static let body = Array(#"{"signed": {}, "signatures": []}"#.utf8)

    @Test func aMomentaryFailureIsTriedAgain() throws {
        let server = try FaultServer(body: Self.body, faults: [.status(503, retryAfter: nil), .dropConnection(at: 0)], lifetime: 30)
        defer { server.stop() }
        let fetch = RepositoryFetch(base: URL(string: server.url("repo/"))!, transport: TransferSettings())
        guard case .body(let data, _) = try fetch.get("metadata/timestamp.json", limit: 1 << 14) else {
            Issue.record("no body after the server recovered")
            return
        }
        #expect(Array(data) == Self.body)
        #expect(fetch.requests == 3 && server.records.count == 3)
    }

    @Test func aServerThatKeepsFailingIsAnErrorNamingTheFile() throws {
        let server = try FaultServer(body: Self.body, faults: Array(repeating: .status(503, retryAfter: nil), count: 10), lifetime: 30)
        defer { server.stop() }
        let fetch = RepositoryFetch(base: URL(string: server.url("repo/"))!, transport: TransferSettings())
        let error = #expect(throws: DownloadError.self) { try fetch.get("metadata/timestamp.json", limit: 1 << 14) }
        #expect(error?.code == .catalog && error?.message.contains("timestamp.json: HTTP 503") == true, "\(error?.message ?? "")")
        #expect(server.records.count == 1 + RepositoryFetch.retryDelays.count)
    }

    /// A repository named at another scheme is never fetched from it; a product ID that climbs out of its folder is
    /// a product the repository does not list.
    @Test func hostileRepositoryURLsAndProductIDsAreRefused() throws {
        let fixture = try TUFClientFixture(products: [(TUFClientTests.maps, "1.0")])
        for url in ["gopher://127.0.0.1/repo", "ftp://127.0.0.1/repo"] {
            let error = #expect(throws: DownloadError.self) {
                try RepositoryClient(repository: url, trustedRoot: try fixture.shippedRoot, store: fixture.store).check(productIDs: [])
            }
            #expect(error?.code == .catalog, "\(url): \(error?.message ?? "")")
        }
        for id in ["../../metadata/1.root", "/etc/passwd", "com.example.maps\u{0}x"] {
            let error = #expect(throws: DownloadError.self) { try fixture.client().check(productIDs: [id]) }
            #expect(error?.code == .catalog && error?.message.contains("not in the repository") == true, "\(id): \(error?.message ?? "")")
        }
    }
}
