import Foundation
import Glibc
import Testing
import TestSupport

@Suite("probe", .serialized)
struct ProgressCadenceProbe {
    @Test(arguments: ["limit_rate 512k;", "limit_rate 2560k;"]) func probe(config: String) async throws {
        let fixture = try DaemonFixture(locationConfig: config)
        try fixture.publish("com.example.probe", size: 24 << 20)
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")
        _ = try client.result("add", ["transactionID": "t", "productID": "com.example.probe"])
        var times: [(Double, String, Int, Double)] = []
        let start = Date()
        while let m = client.readMessage(timeout: 60) {
            let method = m["method"] as? String ?? "?"
            let d = (m["params"] as? [String: Any])?["download"] as? [String: Any]
            times.append((Date().timeIntervalSince(start), method, d?["downloadedBytes"] as? Int ?? -1, d?["timeRemaining"] as? Double ?? -9))
            if method == "download.finished" { break }
        }
        for t in times { print(String(format: "%.3f %@ %d %.1f", t.0, t.1, t.2, t.3)) }
        daemon.kill(SIGTERM)
        _ = daemon.wait(timeout: 30)
    }
}
