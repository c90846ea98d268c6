import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// `download --header/--user-agent` reach the catalog, manifest and archive requests: nginx refuses any
/// request without the token or with another User-Agent, and a chunk-indexed archive needs all three.
@Suite("Transport options: CLI", .serialized)
struct TransportCLITests {
    static let gate = """
        if ($http_authorization != "Bearer s3cret") { return 401; }
        if ($http_user_agent !~ "^(iapcontent/[0-9]|mygame/2)") { return 403; }
        """

    @Test func headersAndUserAgentReachEveryRequest() async throws {
        let fixture = try QueueFixture(locationConfig: Self.gate)
        let maps = try fixture.source("com.example.maps", version: "1.0", size: 3 << 20)
        try fixture.publish([maps], chunked: true)
        let store = fixture.store.root.path
        let denied = try await iapcontentOffPool(["download", "com.example.maps", "--catalog", fixture.catalogURL, "--store", store])
        #expect(denied.status != 0)
        #expect(denied.output.contains("HTTP 401"), "\(denied.output)")

        let run = try await iapcontentOffPool([
            "download", "com.example.maps", "--catalog", fixture.catalogURL, "--store", store, "-vv",
            "--header", "Authorization: Bearer s3cret", "--header", "X-Client: tests",
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("manifest kept: the archive installs chunk by chunk"), "\(run.output)")
        let installed = try #require(fixture.store.contentURL(forProductID: "com.example.maps"))
        #expect(try diffTrees(maps, installed).status == 0)
        let served = fixture.nginx.requests().filter { $0.status == 200 || $0.status == 206 }.map(\.request)
        for path in ["/catalog.json ", "manifests/", "archives/"] {
            #expect(served.contains { $0.contains(path) }, "no authorized request for \(path): \(served)")
        }

        let other = try await iapcontentOffPool([
            "restore", "--catalog", fixture.catalogURL, "--store", fixture.root.appendingPathComponent("other").path,
            "--header", "Authorization: Bearer s3cret", "--user-agent", "curl/8",
        ])
        #expect(other.status != 0)
        #expect(other.output.contains("HTTP 403"), "\(other.output)")
    }

    @Test func aProxyThatIsNotListeningFailsTheCatalogNamingIt() async throws {
        let port = try FreePort.find()
        let store = try TemporaryDirectory.make(prefix: "proxy-store")
        defer { try? FileManager.default.removeItem(at: store) }
        let run = try await iapcontentOffPool([
            "download", "com.example.maps", "--catalog", "http://catalog.example.invalid/catalog.json",
            "--store", store.path, "--proxy", "http://127.0.0.1:\(port)",
        ])
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("(through the proxy http://127.0.0.1:\(port))"), "\(run.output)")
    }
}
