import Foundation
import Glibc
import Testing
import TestSupport

/// A download whose planning kills the daemon (`IAPCONTENT_TEST_CRASH_AT=plan` stands in for a manifest that crashes
/// the process, which no known input does any more) does not crash-loop it: the daemon resumes it at each start and
/// dies twice, then the planning guard fails it with `stoppedPlanning` and the daemon keeps serving; a later request
/// without the fault installs it.
@Suite("Daemon: no crash loop on one bad download", .serialized)
struct DaemonCrashLoopTests {
    static let productID = "com.example.crashloop"
    static let crash = ["IAPCONTENT_TEST_CRASH_AT": "plan"]

    @Test func aDownloadThatKillsPlanningFailsAfterTwoStartsAndTheDaemonServes() throws {
        let fixture = try DaemonFixture()
        try fixture.publish(Self.productID, size: 256 << 10)

        // Start 1: the purchase's planning kills the daemon.
        let first = try fixture.startDaemon(environment: Self.crash)
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = client.request("add", ["transactionID": "t-loop", "productID": Self.productID])
        #expect(first.wait(timeout: 60) == 128 + SIGKILL, "\(first.output)")

        // Start 2: the daemon resumes the unfinished transaction at start, and dies again.
        let second = try fixture.startDaemon(environment: Self.crash)
        #expect(second.wait(timeout: 60) == 128 + SIGKILL, "\(second.output)")

        // Start 3: the guard refuses the planning; the daemon stays up and answers.
        let third = try fixture.startDaemon(environment: Self.crash)
        let watcher = try RPCTestClient(path: fixture.socketPath)
        let snapshot = try watcher.result("subscribe")
        var seen = String(decoding: try JSONSerialization.data(withJSONObject: snapshot), as: UTF8.self)
        if !seen.contains("stoppedPlanning") {
            let failed = watcher.waitForNotification(timeout: 60) { message in
                String(decoding: (try? JSONSerialization.data(withJSONObject: message)) ?? Data(), as: UTF8.self).contains("stoppedPlanning")
            }
            seen = failed.map { String(decoding: (try? JSONSerialization.data(withJSONObject: $0)) ?? Data(), as: UTF8.self) } ?? seen
        }
        #expect(seen.contains("stoppedPlanning") && seen.contains("report it to the publisher"), "\(seen)\n\(third.output)")
        #expect(third.process.isRunning, "the daemon serves on: \(third.output)")
        _ = try watcher.result("subscribe")  // it still answers
        #expect(third.stop() == 0, "\(third.output)")

        // Start 4, no fault: the daemon resumes the unfinished transaction at start (the guard's count was cleared
        // by its refusal), and asking again is answered with it.
        let fourth = try fixture.startDaemon()
        let buyer = try RPCTestClient(path: fixture.socketPath)
        _ = try buyer.result("add", ["transactionID": "t-loop", "productID": Self.productID])
        var installed = false
        for _ in 0..<300 where !installed {  // 60 s at most
            installed = try CommandRunner.iapcontent(["content", Self.productID, "--store", fixture.storeURL.path]).status == 0
            if !installed { usleep(200_000) }
        }
        #expect(installed, "\(fourth.output)")
        #expect(fourth.stop() == 0, "\(fourth.output)")
    }
}
