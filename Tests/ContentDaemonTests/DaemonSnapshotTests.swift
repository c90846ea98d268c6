import Foundation
import Testing
import TestSupport

/// `subscribe`'s snapshot holds every download, also one no transaction asked for: a client that connects while a
/// repair runs learns of it from the answer, not from the next notification.
@Suite("Daemon: the subscription's snapshot holds every download", .serialized)
struct DaemonSnapshotTests {
    static let productID = "com.example.snapshot"

    @Test func aRepairWithoutATransactionIsInTheSnapshot() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 512k;")
        try fixture.publish(Self.productID, size: 3 << 20)
        let daemon = try fixture.startDaemon()
        let buyer = try RPCTestClient(path: fixture.socketPath)
        _ = try buyer.result("subscribe")
        _ = try buyer.result("add", ["transactionID": "t-snapshot", "productID": Self.productID])
        let installed = buyer.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        let folder = try #require((installed?["params"] as? [String: Any])?["contentURL"] as? String, "\(daemon.output)")
        _ = try buyer.result("finish", ["transactionID": "t-snapshot"])

        try FileManager.default.removeItem(atPath: folder + "/Contents/data.bin")
        let repairer = try RPCTestClient(path: fixture.socketPath)
        _ = repairer.request("repair", ["productID": Self.productID])
        let running = buyer.waitForNotification(timeout: 30) { message in
            ((message["params"] as? [String: Any])?["transactionIDs"] as? [String])?.allSatisfy(\.isEmpty) == true
                && downloadField(message, "state") as? String == "active"
        }
        try #require(running != nil, "the repair's download never ran: \(daemon.output)")

        let late = try RPCTestClient(path: fixture.socketPath)
        let subscribed = try late.result("subscribe")
        #expect((subscribed["transactions"] as? [Any])?.isEmpty == true, "\(subscribed)")
        let entries = try #require(subscribed["downloads"] as? [[String: Any]], "no downloads in \(subscribed)")
        let repair = try #require(entries.first { ($0["download"] as? [String: Any])?["productID"] as? String == Self.productID },
                                  "the repair's download is missing: \(subscribed)")
        #expect(repair["transactionIDs"] as? [String] == [], "\(repair)")
        #expect(["waiting", "active", "finished"].contains((repair["download"] as? [String: Any])?["state"] as? String ?? ""), "\(repair)")
        _ = late.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        #expect(daemon.stop() == 0)
    }
}
