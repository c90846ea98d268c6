import Foundation
import Testing
import TestSupport

/// The protocol describes itself, truthfully: `rpc.discover` answers with `docs/openrpc.json`, whose methods are
/// exactly the daemon's method table, whose notifications are exactly what the daemon sends, and the README's
/// daemon section names them all; `subscribe` answers with the status a reconnecting client needs.
@Suite("Daemon: the OpenRPC document is the protocol", .serialized)
struct DaemonInterfaceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let productID = "com.example.discover"

    @Test func rpcDiscoverIsTheDocumentTheMethodTableAndTheReadme() async throws {
        let fixture = try DaemonFixture()
        try fixture.publish(Self.productID, size: 4096)
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)

        let discovered = try client.result("rpc.discover")
        let published = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: Self.root.appendingPathComponent("docs/openrpc.json"))) as? [String: Any])
        #expect(NSDictionary(dictionary: discovered) == NSDictionary(dictionary: published),
                "docs/openrpc.json differs from rpc.discover: run `iapcontent daemon --openrpc > docs/openrpc.json`")
        #expect(discovered["openrpc"] as? String == "1.3.2")

        let entries = try #require(discovered["methods"] as? [[String: Any]])
        let isNotification = { (entry: [String: Any]) in
            (entry["tags"] as? [[String: Any]])?.contains { $0["name"] as? String == "notification" } == true
        }
        let methods = Set(entries.filter { !isNotification($0) }.compactMap { $0["name"] as? String })
        let notifications = Set(entries.filter(isNotification).compactMap { $0["name"] as? String })
        // The daemon's method table, as it lists it for an unknown method.
        let unknown = try #require(rpcError(try client.call("no.such.method")))
        let table = try #require(unknown.message.firstRange(of: "methods: ")).upperBound
        let served = Set(unknown.message[table...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(methods == served, "documented \(methods.sorted()); served \(served.sorted())")
        for entry in entries where !isNotification(entry) {
            #expect(entry["result"] != nil, "\(entry["name"] ?? "?") has no result")
        }

        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.firstRange(of: "3. **The daemon**"))
        let end = try #require(readme[section.upperBound...].firstRange(of: "```python"))
        let text = readme[section.lowerBound..<end.lowerBound]
        for name in methods.union(notifications) {
            #expect(text.contains("`\(name)`"), "the README's daemon section does not name `\(name)`")
        }
        #expect(text.contains("docs/openrpc.json"))
        #expect(daemon.stop() == 0)
    }

    @Test func subscribeAnswersWithEveryTransactionAndInstalledProduct() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 256k;")
        try fixture.publish(Self.productID, size: 1 << 20)
        let daemon = try fixture.startDaemon()
        let buyer = try RPCTestClient(path: fixture.socketPath)
        _ = try buyer.result("add", ["transactionID": "t-snap", "productID": Self.productID])

        let late = try RPCTestClient(path: fixture.socketPath)
        let subscribed = try late.result("subscribe")
        #expect(subscribed["subscribed"] as? Bool == true)
        let transactions = try #require(subscribed["transactions"] as? [[String: Any]], "\(subscribed)")
        #expect(transactions.map { $0["id"] as? String } == ["t-snap"], "\(subscribed)")
        #expect((transactions.first?["downloads"] as? [[String: Any]])?.first?["productID"] as? String == Self.productID)
        #expect(subscribed["installed"] is [Any], "\(subscribed)")

        let finished = late.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        try #require(finished != nil, "\(daemon.output)")
        let sequence = late.notifications.compactMap { ($0["params"] as? [String: Any])?["sequence"] as? Int }
        #expect(sequence.count == late.notifications.count, "every notification has a sequence number")
        #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $0 < $1 }, "\(sequence)")
        #expect(daemon.stop() == 0)
    }
}
