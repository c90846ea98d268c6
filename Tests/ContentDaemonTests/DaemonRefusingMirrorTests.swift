import Foundation
import Testing
import TestSupport

/// The daemon's one engine remembers a mirror that kept refusing: a purchase that drops a mirror for its 429s
/// leaves it alone for the next purchase too (for the engine's rest, 300 s by default), instead of asking it three
/// more times per download. What clients of `iapcontent daemon` see end to end: both products installed, from the
/// healthy origin.
@Suite("Daemon: a refusing mirror remembered")
struct DaemonRefusingMirrorTests {
    @Test func theNextPurchaseLeavesAMirrorThatKeptRefusingAlone() throws {
        // nginx paced, so each download lasts the seconds a refusing mirror needs to refuse three times.
        let fixture = try DaemonFixture(locationConfig: "limit_rate 1m;")
        // A mirror listed first in the catalog that answers every request 429 (no Retry-After to wait out).
        let refusing = try FaultServer(body: [], faults: Array(repeating: .status(429, retryAfter: 0), count: 200))
        defer { refusing.stop() }
        fixture.mirrors = ["http://127.0.0.1:\(refusing.port)/"]
        let first = try fixture.publish("com.example.first", size: 4 << 20)
        let second = try fixture.publish("com.example.second", size: 3 << 20)
        _ = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")

        let firstContent = try Self.purchase("com.example.first", transactionID: "t-1", client)
        #expect(try sameTree(first.path, firstContent))
        let refusedFirst = Self.archiveRequests(refusing).count
        #expect(refusedFirst == 3, "the first purchase asks it three times, then drops it: \(Self.targets(refusing))")

        let secondContent = try Self.purchase("com.example.second", transactionID: "t-2", client)
        #expect(try sameTree(second.path, secondContent))
        #expect(Self.archiveRequests(refusing).count == refusedFirst,
                "the next purchase does not ask it again: \(Self.targets(refusing))")
    }

    /// Adds a purchase of `productID` and waits (at most 60 s) for its download's end; returns its `contentURL`'s path.
    static func purchase(_ productID: String, transactionID: String, _ client: RPCTestClient) throws -> String {
        _ = try client.result("add", ["transactionID": transactionID, "productID": productID])
        let end = client.waitForNotification(timeout: 60) { message in
            let download = (message["params"] as? [String: Any])?["download"] as? [String: Any]
            return download?["productID"] as? String == productID
                && ["finished", "failed", "cancelled"].contains(download?["state"] as? String ?? "")
        }
        let params = try #require(end?["params"] as? [String: Any], "no end of \(productID) within 60 s")
        let download = try #require(params["download"] as? [String: Any], "\(params)")
        try #require(download["state"] as? String == "finished", "\(download)")
        return try #require(params["contentURL"] as? String ?? download["contentURL"] as? String, "\(params)")
    }

    /// The archive requests `server` answered (a manifest request, or a probe for several ranges, is not one).
    static func archiveRequests(_ server: FaultServer) -> [FaultServer.Record] {
        server.records.filter { $0.target.contains("/archives/") && $0.range != "bytes=0-0,2-2" }
    }

    /// What `server` was asked, for a failure's message.
    static func targets(_ server: FaultServer) -> [String] {
        server.records.map { "\($0.target) \($0.range ?? "-")" }
    }
}
