import Foundation
import Testing
import TestSupport

/// What the daemon tells about downloads and transactions is said once and is about the right thing: one
/// notification per change of a download however many transactions share it, `delete` heard by subscribers, an
/// empty transaction identifier refused, and `finish`'s refusal naming the RPC parameter that cancels first.
@Suite("Daemon: one event per download, and the small truths", .serialized)
struct DaemonEventTruthTests {
    static let productID = "com.example.events"

    @Test func twoTransactionsOfOneProductHearOfItsDownloadOnce() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 1m;")
        try fixture.publish(Self.productID, size: 4 << 20)
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")
        _ = try client.result("add", ["transactionID": "t-one", "productID": Self.productID])
        _ = try client.result("add", ["transactionID": "t-two", "productID": Self.productID])
        let finished = client.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        try #require(finished != nil, "\(daemon.output)")
        _ = try client.result("status")  // whatever follows the first finished notification arrives before this reply
        let events = client.notifications.filter { ($0["method"] as? String)?.hasPrefix("download.") == true }
        let finishedCount = events.filter { $0["method"] as? String == "download.finished" }.count
        #expect(finishedCount == 1, "one download finished, told \(finishedCount) times")
        let twins = zip(events, events.dropFirst()).filter { a, b in
            a["method"] as? String == b["method"] as? String && withoutTransaction(a) == withoutTransaction(b)
        }
        #expect(twins.isEmpty, "the same change told twice: \(twins.prefix(2))")
        let ids = (finished?["params"] as? [String: Any])?["transactionIDs"] as? [String]
        #expect(Set(ids ?? []) == ["t-one", "t-two"], "\(finished ?? [:])")
        #expect(daemon.stop() == 0)
    }

    @Test func deleteNotifiesAndRefusalsSayWhatToDo() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 256k;")
        try fixture.publish(Self.productID, size: 2 << 20)
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")

        let empty = try client.call("add", ["transactionID": "", "productID": Self.productID])
        #expect(rpcError(empty)?.code == -32000, "\(empty)")
        #expect(rpcError(empty)?.dataCode == "emptyTransactionID", "\(empty)")

        _ = try client.result("add", ["transactionID": "t-del", "productID": Self.productID])
        let refused = try client.call("finish", ["transactionID": "t-del"])
        #expect(rpcError(refused)?.dataCode == "downloadsInFlight", "\(refused)")
        #expect(rpcError(refused)?.message.contains(#""cancelDownloads": true"#) == true, "\(refused)")
        #expect(rpcError(refused)?.message.contains("cancelDownloadsAndFinish") == false, "\(refused)")

        let finished = client.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        try #require(finished != nil, "\(daemon.output)")
        _ = try client.result("finish", ["transactionID": "t-del"])
        #expect(try client.result("delete", ["productID": Self.productID])["deleted"] as? Bool == true)
        let removed = client.waitForNotification(timeout: 5) { $0["method"] as? String == "content.removed" }
        #expect((removed?["params"] as? [String: Any])?["productIDs"] as? [String] == [Self.productID], "\(client.notifications.suffix(3))")
        #expect(daemon.stop() == 0)
    }

    /// A download notification's params without the transaction its download names (each transaction's copy of one
    /// change differs only there), the send time and the sequence.
    private func withoutTransaction(_ message: [String: Any]) -> NSDictionary {
        var params = message["params"] as? [String: Any] ?? [:]
        params["time"] = nil
        params["sequence"] = nil
        if var download = params["download"] as? [String: Any] {
            download["transactionID"] = nil
            params["download"] = download
        }
        return params as NSDictionary
    }
}
