import Foundation
import Glibc
import Testing
import TestSupport

/// What a client hears first, and what it is told about time: the first `download.progress` follows `add` within
/// 300 ms on loopback, and after a restart the first time remaining is the new attempt's own.
@Suite("Daemon: first progress and time remaining", .serialized)
struct DaemonFirstProgressTests {
    /// Five downloads, one after another: from sending `add` to reading the download's first `download.progress`,
    /// within 300 ms, for all but at most one (the tree's fsyncs come first, and right after a build the disk may
    /// hold one back; `PlacementWakeTests` checks the mechanism without a clock). nginx's `limit_rate` sends a
    /// second's budget at once, then nothing until the next second; the first chunk is placed once the tree is
    /// kept, which may be after that burst was read. Told only when a socket next woke the transfer loop, 3 of 18
    /// such adds took 0.34–0.52 s (22–38 ms for the others): the first placement now wakes the loop.
    @Test func theFirstProgressFollowsAddWithin300Milliseconds() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 4m;")
        let products = (1...5).map { "com.example.first\($0)" }
        for product in products { try fixture.publish(product, size: 16 << 20) }
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")
        var delays: [Double] = []
        for product in products {
            let sent = Date()
            client.request("add", ["transactionID": "t-\(product)", "productID": product])
            let first = client.waitForNotification(timeout: 30) { message in
                message["method"] as? String == "download.progress" && downloadField(message, "productID") as? String == product
            }
            try #require(first != nil, "\(daemon.output)")
            delays.append(Date().timeIntervalSince(sent))
            _ = client.waitForNotification(timeout: 60) { message in
                message["method"] as? String == "download.finished" && downloadField(message, "productID") as? String == product
            }
        }
        #expect(delays.filter { $0 > 0.3 }.count <= 1, "first download.progress after add: \(delays.map { String(format: "%.3f s", $0) })")
        #expect(daemon.stop() == 0)
    }

    /// Killed at about a third of a download, then started again at a quarter of the rate: the new daemon's
    /// first estimate comes within a second of its transfer's start and is about what is left at the new
    /// attempt's rate — had it counted the bytes on disk as its own, it would say a second or two for what takes
    /// about ten.
    @Test func theFirstEstimateAfterARestartIsTheNewAttempts() async throws {
        let fixture = try DaemonFixture()
        let product = "com.example.restart-eta"
        try fixture.publish(product, size: 16 << 20)
        let first = try fixture.startDaemon(["--max-rate", "4000000"])
        let buyer = try RPCTestClient(path: fixture.socketPath)
        _ = try buyer.result("subscribe")
        _ = try buyer.result("add", ["transactionID": "t-eta", "productID": product])
        let third = buyer.waitForNotification(timeout: 60) { (downloadField($0, "downloadedBytes") as? Int ?? 0) >= 6 << 20 }
        try #require(third != nil, "\(first.output)")
        first.kill(SIGKILL)
        _ = first.wait(timeout: 10)

        let second = try fixture.startDaemon(["--max-rate", "1000000"])
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")
        let running = client.waitForNotification(timeout: 30) { downloadField($0, "state") as? String == "active" }
        try #require(running != nil, "\(second.output)")
        let runningAt = Date()
        let estimated = client.waitForNotification(timeout: 30) { (downloadField($0, "timeRemaining") as? Double ?? -1) > 0 }
        let told = try #require(estimated, "no estimate after the restart: \(second.output)")
        let toldAt = Date()
        let eta = try #require(downloadField(told, "timeRemaining") as? Double)
        #expect(toldAt.timeIntervalSince(runningAt) <= 1.5, "the first estimate came \(toldAt.timeIntervalSince(runningAt)) s after the start")
        let finished = client.waitForNotification(timeout: 120) { $0["method"] as? String == "download.finished" }
        try #require(finished != nil, "\(second.output)")
        let truth = Date().timeIntervalSince(toldAt)
        #expect(eta >= truth * 0.5 && eta <= truth * 2, "the first estimate after the restart said \(eta) s; the rest took \(truth) s")
        #expect(second.stop() == 0)
    }
}
