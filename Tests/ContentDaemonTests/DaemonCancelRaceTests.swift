import ContentDownloads
import Foundation
import Testing
import TestSupport

/// Cancel followed at once by another call, against a throttled server: cancel → add (a new transaction) on the
/// cancel's reply, cancel → start, pause → resume → cancel → add, and cancel → add of the cancelled transaction
/// again. Each must install the published tree, never stay `waiting`, and leave nothing under `transfers/`.
///
/// Each sequence runs `IAPCONTENT_CANCEL_LOOPS` times (2 unless set; `tools/cancel-soak` runs 100).
@Suite("Daemon: cancel, then add, start or add again at once", .serialized)
struct DaemonCancelRaceTests {
    static let productID = "com.example.cancelrace"
    static var loops: Int { Int(ProcessInfo.processInfo.environment["IAPCONTENT_CANCEL_LOOPS"] ?? "") ?? 2 }

    /// What follows the cancel.
    enum Sequence: String, CaseIterable {
        case cancelThenAdd, cancelThenStart, pauseResumeCancelThenAdd, cancelThenAddAgain
    }

    @Test func everySequenceInstallsAndLeavesNothingBehind() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 1m;")
        // Long enough that a cancel sent once the first chunk is in place still finds the download running.
        let source = try fixture.publish(Self.productID, size: 16 << 20)
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")
        var number = 0, late = 0
        for round in 0..<Self.loops {
            for sequence in Sequence.allCases {
                number += 1
                let context = "\(sequence.rawValue), round \(round)"
                if let installing = try run(sequence, number: number, client: client) {
                    let finished = client.waitForNotification(timeout: 60) { message in
                        message["method"] as? String == "download.finished" && transactionID(of: message) == installing
                    }
                    try #require(finished != nil, "\(context): \(installing) never finished; \(lastStates(client))\n\(daemon.output)")
                } else {
                    late += 1  // the download ended before the cancel arrived: nothing of the sequence to check
                }
                let installed = try #require(try Store(root: fixture.storeURL).contentURL(forProductID: Self.productID))
                #expect(try sameTree(source.path, installed.path), "\(context)")
                let left = try FileManager.default.contentsOfDirectory(atPath: fixture.storeURL.appendingPathComponent("transfers").path)
                #expect(left.isEmpty, "\(context): left in transfers/: \(left)")
                for transaction in try client.result("status")["transactions"] as? [[String: Any]] ?? [] {
                    let id = try #require(transaction["id"] as? String)
                    _ = try client.result("finish", ["transactionID": id, "cancelDownloads": true])
                }
                #expect(try client.result("delete", ["productID": Self.productID])["deleted"] as? Bool == true)
                client.notifications.removeAll()
            }
        }
        #expect(late * 4 <= number, "\(late) of \(number) cancels came after the download ended: too few sequences ran")
        #expect(daemon.stop() == 0)
    }

    /// Buys, waits for bytes, then runs `sequence`; returns the transaction whose download must install, `nil` when
    /// the download had finished before the cancel arrived.
    private func run(_ sequence: Sequence, number: Int, client: RPCTestClient) throws -> String? {
        let first = "t-\(number)"
        let product = ["productID": Self.productID]
        _ = try client.result("add", ["transactionID": first, "productID": Self.productID])
        let moving = client.waitForNotification(timeout: 30) { message in
            transactionID(of: message) == first && downloadField(message, "downloadedBytes") as? Int ?? 0 > 0
        }
        try #require(moving != nil, "\(sequence.rawValue): no bytes arrived for \(first)")
        if sequence == .pauseResumeCancelThenAdd {
            #expect(try client.result("pause", product)["state"] as? String == "paused")
            _ = try client.result("resume", product)
        }
        let cancelled = try client.result("cancel", product)
        if cancelled["state"] as? String == "finished" { return nil }
        #expect(cancelled["state"] as? String == "cancelled", "\(cancelled)")
        switch sequence {
        case .cancelThenAdd, .pauseResumeCancelThenAdd:
            let again = "t-\(number)-again"
            let added = try client.result("add", ["transactionID": again, "productID": Self.productID])
            let download = try #require((added["downloads"] as? [[String: Any]])?.first, "\(added)")
            #expect(download["state"] as? String != "cancelled", "a new transaction is not the old one's cancel: \(added)")
            if download["downloadedBytes"] as? Int == 0 {
                #expect(download["timeRemaining"] as? Double == -1, "no bytes, no rate: \(added)")
            }
            let told = client.notifications.first { message in
                (message["method"] as? String == "transaction"
                    && ((message["params"] as? [String: Any])?["transaction"] as? [String: Any])?["id"] as? String == again)
                    || transactionID(of: message) == again
            }
            let firstState = told.flatMap { message -> String? in
                let transaction = (message["params"] as? [String: Any])?["transaction"] as? [String: Any]
                return ((transaction?["downloads"] as? [[String: Any]])?.first?["state"] as? String) ?? downloadField(message, "state") as? String
            }
            #expect(firstState != "cancelled", "the new transaction's first notification: \(told ?? [:])")
            return again
        case .cancelThenStart:
            _ = try client.result("start", product)
            return first
        case .cancelThenAddAgain:
            let transaction = try client.result("add", ["transactionID": first, "productID": Self.productID])
            let state = (transaction["downloads"] as? [[String: Any]])?.first?["state"] as? String
            #expect(state != "cancelled", "adding a cancelled transaction again starts its download: \(transaction)")
            return first
        }
    }

    private func lastStates(_ client: RPCTestClient) -> String {
        client.notifications.suffix(6).map { "\($0["method"] ?? "?") \(downloadField($0, "transactionID") ?? "-") \(downloadField($0, "state") ?? "-")" }
            .joined(separator: "; ")
    }
}

/// A member of a notification's `download`.
func downloadField(_ message: [String: Any], _ key: String) -> Any? {
    ((message["params"] as? [String: Any])?["download"] as? [String: Any])?[key]
}

/// The transaction a download notification is about.
func transactionID(of message: [String: Any]) -> String? { downloadField(message, "transactionID") as? String }
