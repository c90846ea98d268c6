import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// The daemon with a TUF repository: it loads the bins of a product a client adds, checks for updates by itself
/// (a root probe and a 304 while nothing changed) and announces a new version once with `update.available`.
@Suite("Daemon: update checks against a TUF repository")
struct DaemonUpdateCheckTests {
    static let productID = "com.example.level"

    @Test func aPublishedVersionIsAnnouncedOnceByThePeriodicCheck() throws {
        let fixture = try DaemonFixture()
        try fixture.publish(Self.productID, version: "1.0", size: 300_000)
        // A TUF repository beside the catalog, holding what the catalog holds.
        let repository = TUFRepository(directory: fixture.nginx.root.appendingPathComponent("repo"), now: Date())
        let rootKey = KeyFileSigner(SigningKey.generate())
        let onlineKey = KeyFileSigner(SigningKey.generate())
        try repository.initialize(rootSigners: [rootKey], rootThreshold: 1, onlineSigners: [onlineKey], binsBitLength: 4)
        try repository.add(catalogDirectory: fixture.nginx.root, signers: [onlineKey])

        let daemon = try fixture.startDaemon(
            ["--trusted-root", repository.layout.versioned("root", 1).path, "--check-interval", "1"],
            catalog: fixture.nginx.baseURL + "/repo/")
        defer { _ = daemon.stop() }
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")
        // Not in the catalog the daemon started with (nothing installed): the add loads the product's bins.
        _ = try client.result("add", ["transactionID": "t1", "productID": Self.productID])
        let finished = client.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        try #require(finished != nil, "\(daemon.output)")

        // Checks while nothing changed: each a root probe and a 304.
        let before = fixture.nginx.requests().count
        Thread.sleep(forTimeInterval: 2.5)
        let idle = fixture.nginx.requests().dropFirst(before)
        #expect(!idle.isEmpty && idle.allSatisfy { $0.status == 404 || $0.status == 304 }, "\(idle.map(\.request))")

        try fixture.publish(Self.productID, version: "2.0", size: 300_000)
        try repository.add(catalogDirectory: fixture.nginx.root, signers: [onlineKey])
        let announced = client.waitForNotification(timeout: 30) { $0["method"] as? String == "update.available" }
        let update = (announced?["params"] as? [String: Any])?["update"] as? [String: Any]
        #expect(update?["productID"] as? String == Self.productID)
        #expect(update?["catalogVersion"] as? String == "2.0")
        #expect(update?["installedVersion"] as? String == "1.0")
        // Announced once: the next checks find the same version.
        let first = (announced?["params"] as? [String: Any])?["sequence"] as? Int ?? 0
        let again = client.waitForNotification(timeout: 3) { message in
            message["method"] as? String == "update.available" && ((message["params"] as? [String: Any])?["sequence"] as? Int ?? 0) > first
        }
        #expect(again == nil)
    }
}
