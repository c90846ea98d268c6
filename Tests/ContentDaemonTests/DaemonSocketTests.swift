import ContentDownloads
import Foundation
import Testing
import TestSupport

/// `iapcontent daemon` driven over its socket as a client in another language would: a purchase with its
/// events, then the content methods.
@Suite("Daemon: a purchase over the socket", .serialized)
struct DaemonSocketTests {
    @Test func aPurchaseIsInstalledWithItsEventsPushed() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 512k;")  // 4 connections with a run each: about 2 s
        let source = try fixture.publish("com.example.daemon", size: 4 << 20)
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        #expect(try client.result("subscribe")["subscribed"] as? Bool == true)
        let added = try client.result("add", ["transactionID": "t-1", "productID": "com.example.daemon"])
        #expect(added["productID"] as? String == "com.example.daemon")

        let finished = client.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        let params = try #require(finished?["params"] as? [String: Any], "\(client.notifications.map { $0["method"] ?? "" }) \(daemon.output)")
        let contentURL = try #require(params["contentURL"] as? String)
        #expect(try sameTree(source.path, contentURL))

        let methods = client.notifications.compactMap { $0["method"] as? String }
        #expect(methods.first == "transaction", "the transaction comes before its downloads: \(methods)")
        #expect(methods.contains("download.state"))
        let progress = client.notifications.filter { $0["method"] as? String == "download.progress" }
        #expect(progress.count >= 4, "about 2 s of transfer: \(methods)")
        let fractions = progress.compactMap { (($0["params"] as? [String: Any])?["download"] as? [String: Any])?["progress"] as? Double }
        #expect(fractions == fractions.sorted(), "progress only grows")

        let content = try client.result("content", ["productID": "com.example.daemon"])
        #expect(content["contentURL"] as? String == contentURL)
        #expect(content["version"] as? String == "1.0")
        let verified = try client.result("verify", ["productID": "com.example.daemon"])
        #expect(verified["isIntact"] as? Bool == true)
        let status = try client.result("status")
        let transactions = try #require(status["transactions"] as? [[String: Any]])
        #expect(transactions.map { $0["id"] as? String } == ["t-1"])
        #expect(try client.result("finish", ["transactionID": "t-1"])["finished"] as? String == "t-1")
        #expect(try client.result("status")["transactions"] as? [Any] != nil)
        #expect((try client.result("status")["transactions"] as? [Any])?.isEmpty == true)

        // A newer version in a reloaded catalog is an update with its size.
        try fixture.publish("com.example.daemon", version: "2.0", size: 4 << 20)
        #expect(try client.result("reloadCatalog")["catalogVersion"] != nil)
        let updates = try #require(try client.call("updates")["result"] as? [[String: Any]])
        #expect(updates.map { $0["catalogVersion"] as? String } == ["2.0"])
        #expect((updates.first?["downloadBytes"] as? Int ?? 0) > 0)

        #expect(try client.result("delete", ["productID": "com.example.daemon"])["deleted"] as? Bool == true)
        #expect(try client.result("content", ["productID": "com.example.daemon"])["contentURL"] is NSNull)

        #expect(daemon.stop() == 0, "\(daemon.output)")
    }
}
