import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// The methods and notifications `DaemonSocketTests` leaves out, over the socket: the progress limit, `repair`,
/// `start`, a failed download's `download.error`, `restore` with and without entitlements (with
/// `entitlements.reconciled` and `content.removed`), and `unsubscribe`.
@Suite("Daemon: repair, restore, errors and removal over the socket", .serialized)
struct DaemonMethodTests {
    let a = "com.example.methods.a"
    let b = "com.example.methods.b"

    @Test func theOtherMethodsAndNotificationsReachTheClient() async throws {
        let key = SigningKey.generate()
        let fixture = try DaemonFixture(locationConfig: "limit_rate 512k;")  // a few seconds of transfer for a's 12 MiB
        fixture.signingKey = key
        // Progress moves a chunk (about 1 MiB) at a time, as the chunks are placed: enough of them for several.
        let sourceA = try fixture.publish(a, size: 12 << 20)
        try fixture.publish(b, size: 1 << 20)
        let daemon = try fixture.startDaemon(["--public-key", key.publicKeyBase64])
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")

        // A purchase: at most 10 progress notifications a second for its download.
        _ = try client.result("add", ["transactionID": "t-a", "productID": a])
        let finished = client.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        let contentURL = try #require((finished?["params"] as? [String: Any])?["contentURL"] as? String, "\(daemon.output)")
        let times = client.notifications.filter { $0["method"] as? String == "download.progress" }
            .compactMap { ($0["params"] as? [String: Any])?["time"] as? Double }
        #expect(times.count >= 3, "\(times)")
        let busiest = times.indices.map { i in times[i...].prefix { $0 < times[i] + 1 }.count }.max() ?? 0
        #expect(busiest <= 10, "\(busiest) progress notifications within one second")
        #expect(try client.result("finish", ["transactionID": "t-a"])["finished"] as? String == "t-a")

        // repair: a deleted file is reported by verify, put back by repair (which answers what it found).
        let data = URL(fileURLWithPath: contentURL).appendingPathComponent("Contents/data.bin")
        try FileManager.default.removeItem(at: data)
        #expect(try client.result("verify", ["productID": a])["missing"] as? [String] == ["Contents/data.bin"])
        let repaired = try client.result("repair", ["productID": a], timeout: 60)
        #expect(repaired["missing"] as? [String] == ["Contents/data.bin"], "\(repaired)")
        #expect(try client.result("verify", ["productID": a])["isIntact"] as? Bool == true)
        #expect(try sameTree(sourceA.path, contentURL))

        // restore without entitlements: deleted content of the history comes back in a restore transaction.
        #expect(try client.result("delete", ["productID": a])["deleted"] as? Bool == true)
        let restored = try client.result("restore")
        let transactions = try #require(restored["restored"] as? [[String: Any]])
        #expect(transactions.map { $0["productID"] as? String } == [a], "\(restored)")
        #expect(transactions.first?["kind"] as? String == "restore")
        let restoreID = try #require(transactions.first?["id"] as? String)
        let back = client.waitForNotification(timeout: 60) { message in
            message["method"] as? String == "download.finished"
                && ((message["params"] as? [String: Any])?["download"] as? [String: Any])?["transactionID"] as? String == restoreID
        }
        #expect(back != nil, "\(daemon.output)")
        #expect(try sameTree(sourceA.path, contentURL))
        for transaction in transactions {
            _ = try client.result("finish", ["transactionID": try #require(transaction["id"] as? String)])
        }

        // A download whose archive is gone: download.error with a code and a message; `start` retries it.
        let catalog = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture.nginx.root.appendingPathComponent("catalog.json"))) as? [String: Any]
        let products = try #require(catalog?["products"] as? [[String: Any]])
        let path = try #require(products.first { $0["productID"] as? String == b }?["path"] as? String)
        try FileManager.default.removeItem(at: fixture.nginx.root.appendingPathComponent(path))
        _ = try client.result("add", ["transactionID": "t-b", "productID": b])
        let failed = client.waitForNotification(timeout: 60) { $0["method"] as? String == "download.error" }
        let error = try #require((failed?["params"] as? [String: Any])?["error"] as? [String: Any], "\(daemon.output)")
        #expect((error["code"] as? String)?.isEmpty == false)
        #expect((error["message"] as? String)?.contains(b) == true || (error["message"] as? String)?.contains("404") == true, "\(error)")
        let started = try client.result("start", ["productID": b])
        #expect(started["productID"] as? String == b)
        _ = try client.result("finish", ["transactionID": "t-b", "cancelDownloads": true])

        // restore with entitlements that revoke a: removed, told twice (reconciled, content.removed).
        let entitlements = fixture.nginx.root.appendingPathComponent("entitlements.json")
        try Entitlements(subject: "customer-1", issuedAt: Date(), sequence: 1, expires: nil, products: [a: .revoked])
            .write(to: entitlements, signingKey: key)
        let outcome = try client.result("restore", ["entitlements": fixture.nginx.baseURL + "/entitlements.json"])
        #expect(outcome["removed"] as? [String] == [a], "\(outcome)")
        let reconciled = client.waitForNotification(timeout: 10) { $0["method"] as? String == "entitlements.reconciled" }
        #expect((reconciled?["params"] as? [String: Any])?["removed"] as? [String] == [a])
        let removed = client.waitForNotification(timeout: 10) { $0["method"] as? String == "content.removed" }
        #expect((removed?["params"] as? [String: Any])?["productIDs"] as? [String] == [a])
        #expect(try client.result("content", ["productID": a])["contentURL"] is NSNull)

        // unsubscribe: the next reconciliation is not sent to this client.
        #expect(try client.result("unsubscribe")["subscribed"] as? Bool == false)
        let before = client.notifications.count
        try Entitlements(subject: "customer-1", issuedAt: Date(), sequence: 2, expires: nil, products: [a: .revoked])
            .write(to: entitlements, signingKey: key)
        _ = try client.result("restore", ["entitlements": fixture.nginx.baseURL + "/entitlements.json"])
        let late = client.readMessage(timeout: 1.5)
        #expect(late == nil, "sent after unsubscribe: \(String(describing: late))")
        #expect(client.notifications.count == before)

        #expect(daemon.stop() == 0, "\(daemon.output)")
    }
}
