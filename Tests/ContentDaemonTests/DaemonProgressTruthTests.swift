import ContentDownloads
import Foundation
import Glibc
import Testing
import TestSupport

/// What a client is told about bytes is what the store keeps: the bytes of every notification never go back, the
/// pause's reply is what the resume starts from, and after SIGTERM the last notification is at most what the
/// journal kept (what the next start resumes from).
@Suite("Daemon: reported bytes are kept bytes", .serialized)
struct DaemonProgressTruthTests {
    static let productID = "com.example.truth"

    /// A cap on the whole download (1 MiB/s, so about 12 s for all of it): the daemon opens connections until the
    /// origin's per-connection cap stops paying, so without it the download ends before the SIGTERM it is about.
    static let daemonArguments = ["--max-rate", "1048576"]

    @Test func bytesNeverGoBackThroughPauseResumeAndSigterm() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 512k;")
        let source = try fixture.publish(Self.productID, size: 12 << 20)
        let (first, client, reached) = try fixture.startPurchase(
            Self.productID, transactionID: "t-truth", untilBytes: 2 << 20, daemonArguments: Self.daemonArguments)
        try #require(reached, "\(first.output)")

        let paused = try client.result("pause", ["productID": Self.productID])
        let pausedBytes = try #require(paused["downloadedBytes"] as? Int, "\(paused)")
        _ = try client.result("resume", ["productID": Self.productID])
        let resumed = client.waitForNotification(timeout: 30) { message in
            message["method"] as? String == "download.progress" && (downloadField(message, "downloadedBytes") as? Int ?? 0) > pausedBytes + (1 << 20)
        }
        try #require(resumed != nil, "\(first.output)")
        let beforeStop = byteSeries(client.notifications)
        #expect(isNonDecreasing(beforeStop), "bytes went back: \(beforeStop)")
        #expect(beforeStop.contains(pausedBytes), "the pause's reply (\(pausedBytes) bytes) is what resumes: \(beforeStop)")

        #expect(first.stop() == 0, "\(first.output)")
        _ = client.waitForClose(timeout: 10)
        let told = byteSeries(client.notifications).last ?? 0
        let kept = try StoreOverview(store: Store(root: fixture.storeURL)).downloads.first?.downloadedBytes ?? 0
        #expect(Int(kept) >= told, "the last notification said \(told) bytes, the journal kept \(kept)")
        try #require(kept < 12 << 20, "the download ended before the SIGTERM, so the restart has nothing to show")

        let second = try fixture.startDaemon(Self.daemonArguments)
        let again = try RPCTestClient(path: fixture.socketPath)
        _ = try again.result("subscribe")
        let finished = again.waitForNotification(timeout: 90) { $0["method"] as? String == "download.finished" }
        #expect(finished != nil, "\(second.output)")
        let afterStart = byteSeries(again.notifications)
        #expect(isNonDecreasing(afterStart), "bytes went back after the restart: \(afterStart)")
        #expect(afterStart.allSatisfy { $0 >= told }, "the restart said fewer bytes than the last notification (\(told)): \(afterStart)")
        let installed = try #require(try Store(root: fixture.storeURL).contentURL(forProductID: Self.productID))
        #expect(try sameTree(source.path, installed.path))
        #expect(second.stop() == 0)
    }

    /// The bytes of every download notification of an unfinished download, in order.
    private func byteSeries(_ notifications: [[String: Any]]) -> [Int] {
        notifications.filter { ($0["method"] as? String)?.hasPrefix("download.") == true && downloadField($0, "state") as? String != "finished" }
            .compactMap { downloadField($0, "downloadedBytes") as? Int }
    }

    private func isNonDecreasing(_ values: [Int]) -> Bool { zip(values, values.dropFirst()).allSatisfy { $0 <= $1 } }
}
