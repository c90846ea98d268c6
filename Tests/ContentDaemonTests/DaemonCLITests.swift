import Foundation
import Glibc
import Testing
import TestSupport

/// `iapcontent pause|resume|cancel|status --store` while a daemon serves the store: they act on the running
/// queue at once and say what state they left.
@Suite("Daemon: the CLI reaches it", .serialized)
struct DaemonCLITests {
    static let productID = "com.example.cli"

    static func state(of message: [String: Any]) -> String? {
        ((message["params"] as? [String: Any])?["download"] as? [String: Any])?["state"] as? String
    }

    @Test func pauseResumeCancelAndStatusReachTheDaemon() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 256k;")
        try fixture.publish(Self.productID, size: 8 << 20)
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")
        _ = try client.result("add", ["transactionID": "t-cli", "productID": Self.productID])
        #expect(client.waitForNotification(timeout: 30) { Self.state(of: $0) == "active" } != nil, "\(daemon.output)")
        let store = ["--store", fixture.storeURL.path]

        let paused = try CommandRunner.iapcontent(["pause", Self.productID] + store)
        #expect(paused.status == 0, "\(paused.stderr)")
        #expect(paused.stdoutLines == ["\(Self.productID): paused"], "applied by the daemon, not left in the journal: \(paused.stdout)")
        #expect(client.waitForNotification(timeout: 5) { Self.state(of: $0) == "paused" } != nil)

        let resumed = try CommandRunner.iapcontent(["resume", Self.productID] + store)
        #expect(resumed.stdoutLines.first?.hasPrefix("\(Self.productID): ") == true, "\(resumed.stdout) \(resumed.stderr)")
        client.notifications.removeAll()
        #expect(client.waitForNotification(timeout: 10) { Self.state(of: $0) == "active" } != nil)
        _ = client.waitForNotification(timeout: 10) { $0["method"] as? String == "download.progress" }

        // status shows the live bytes (the journal has only the last checkpoint) with the daemon's state.
        let status = try CommandRunner.iapcontent(["status", "--json"] + store)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]], "\(status.stdout) \(status.stderr)")
        let entry = try #require(entries.first { $0["productID"] as? String == Self.productID })
        #expect(entry["state"] as? String == "active")
        #expect((entry["downloadedBytes"] as? Int ?? 0) > 0)
        #expect((entry["progress"] as? Double ?? 0) > 0)

        let cancelled = try CommandRunner.iapcontent(["cancel", Self.productID] + store)
        #expect(cancelled.stdoutLines == ["\(Self.productID): cancelled"], "\(cancelled.stdout) \(cancelled.stderr)")
        #expect(client.waitForNotification(timeout: 5) { Self.state(of: $0) == "cancelled" } != nil)
        let unknown = try CommandRunner.iapcontent(["pause", "com.example.nothing"] + store)
        #expect(unknown.status == 1, "\(unknown.stdout)")
        #expect(daemon.stop() == 0)
    }
}
