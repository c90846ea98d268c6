import Foundation
import Glibc
import Testing
import TestSupport

/// `iapcontent status --store` with no daemon running says what the store holds: a download its killed daemon
/// left `active` in the journal is interrupted (waiting, no time remaining, error `interrupted`), and a failed
/// download keeps its state and reason through a SIGTERM of the daemon.
@Suite("Daemon: status without a daemon says what is true", .serialized)
struct DaemonStatusTruthTests {
    static let productID = "com.example.statustruth"

    @Test func afterKill9TheDownloadIsInterruptedNotActive() async throws {
        // Slow enough that the download is still running when the kill lands, however many connections it opens
        // and however loaded the machine is (16 connections at 128 KB/s each leave 7 s after the first 2 MiB).
        let fixture = try DaemonFixture(locationConfig: "limit_rate 128k;")
        try fixture.publish(Self.productID, size: 16 << 20)
        let (daemon, _, reached) = try fixture.startPurchase(Self.productID, transactionID: "t-kill", untilBytes: 2 << 20)
        try #require(reached, "\(daemon.output)")
        daemon.kill(SIGKILL)
        #expect(daemon.wait(timeout: 30) == 128 + SIGKILL)

        let entry = try statusEntry(fixture)
        #expect(entry["state"] as? String == "waiting", "\(entry)")
        #expect(entry["timeRemaining"] as? Double == -1, "\(entry)")
        let error = entry["error"] as? [String: Any]
        #expect(error?["code"] as? String == "interrupted", "\(entry)")
        #expect((error?["message"] as? String)?.hasPrefix("interrupted") == true, "\(entry)")
        let plain = try CommandRunner.iapcontent(["status", "--store", fixture.storeURL.path])
        #expect(plain.stdout.contains("interrupted"), "\(plain.stdout)")
    }

    @Test func aFailedDownloadKeepsItsReasonThroughSigterm() async throws {
        let fixture = try DaemonFixture()
        try fixture.publish(Self.productID, size: 1 << 20)
        let catalog = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture.nginx.root.appendingPathComponent("catalog.json"))) as? [String: Any]
        let path = try #require((catalog?["products"] as? [[String: Any]])?.first?["path"] as? String)
        try FileManager.default.removeItem(at: fixture.nginx.root.appendingPathComponent(path))
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")
        _ = try client.result("add", ["transactionID": "t-fail", "productID": Self.productID])
        let failed = client.waitForNotification(timeout: 60) { $0["method"] as? String == "download.error" }
        try #require(failed != nil, "\(daemon.output)")
        #expect(daemon.stop() == 0, "\(daemon.output)")

        let entry = try statusEntry(fixture)
        #expect(entry["state"] as? String == "failed", "\(entry)")
        let error = try #require((entry["error"] as? [String: Any])?["message"] as? String, "the reason is kept: \(entry)")
        #expect(error.contains("404"), "\(error)")
    }

    /// The product's entry of `status --json` (no daemon runs).
    private func statusEntry(_ fixture: DaemonFixture) throws -> [String: Any] {
        let status = try CommandRunner.iapcontent(["status", "--json", "--store", fixture.storeURL.path])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]], "\(status.stdout) \(status.stderr)")
        return try #require(entries.first { $0["productID"] as? String == Self.productID }, "\(entries)")
    }
}
