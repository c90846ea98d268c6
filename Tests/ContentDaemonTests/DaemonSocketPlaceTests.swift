import ContentDownloads
import Foundation
import Glibc
import Testing
import TestSupport

/// Where the socket lives and who may reach it, and a client that leaves while its request still runs.
@Suite("Daemon: the socket's place and a client that leaves", .serialized)
struct DaemonSocketPlaceTests {
    @Test func theDefaultSocketIsInTheRuntimeDirectoryForItsUserOnly() async throws {
        let fixture = try DaemonFixture()
        let runtime = fixture.root.appendingPathComponent("xdg", isDirectory: true)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let daemon = try DaemonProcess.spawn(
            ["daemon", "--store", fixture.storeURL.path, "--catalog", fixture.catalogURL],
            environment: ["XDG_RUNTIME_DIR": runtime.path], log: fixture.root.appendingPathComponent("default.log"))
        defer { daemon.kill(SIGKILL) }
        let socket = runtime.appendingPathComponent("iapcontent/daemon.sock").path
        let client = try RPCTestClient(path: socket)
        #expect(try client.result("status")["transactions"] != nil)
        var info = stat()
        #expect(lstat(socket, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o600, "socket mode \(String(info.st_mode & 0o777, radix: 8))")
        #expect(stat(runtime.appendingPathComponent("iapcontent").path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700, "folder mode \(String(info.st_mode & 0o777, radix: 8))")
        #expect(daemon.stop() == 0, "\(daemon.output)")
        #expect(!FileManager.default.fileExists(atPath: socket))

        // Without --socket and without XDG_RUNTIME_DIR: refused, saying what to do.
        let result = try CommandRunner.run(
            "/usr/bin/env", ["-u", "XDG_RUNTIME_DIR", try CommandRunner.builtExecutable().path, "daemon", "--store", fixture.storeURL.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("XDG_RUNTIME_DIR is not set") && result.stderr.contains("--socket"), "\(result.stderr)")
    }

    @Test func aClientThatLeavesDuringARepairLeavesTheRepairToFinish() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 1m;")
        let productID = "com.example.leaving"
        let source = try fixture.publish(productID, size: 3 << 20)
        let (daemon, first, reached) = try fixture.startPurchase(productID, transactionID: "t-leave", untilBytes: 3 << 20)
        #expect(reached, "\(daemon.output)")
        let done = first.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        let contentURL = try #require((done?["params"] as? [String: Any])?["contentURL"] as? String, "\(daemon.output)")
        try FileManager.default.removeItem(at: URL(fileURLWithPath: contentURL).appendingPathComponent("Contents/data.bin"))

        do {  // asks for a repair (seconds at 1 MiB/s) and goes before the answer
            let leaving = try RPCTestClient(path: fixture.socketPath)
            leaving.request("repair", ["productID": productID])
            usleep(200_000)
        }
        let other = try RPCTestClient(path: fixture.socketPath)
        #expect(try other.result("status")["transactions"] != nil, "the daemon answers others meanwhile")
        var intact = false
        for _ in 0..<150 where !intact {
            intact = try other.result("verify", ["productID": productID])["isIntact"] as? Bool == true
            if !intact { usleep(200_000) }
        }
        #expect(intact, "the repair its client left did not finish: \(daemon.output)")
        #expect(try sameTree(source.path, contentURL))
        #expect(daemon.process.isRunning)
        #expect(daemon.stop() == 0, "\(daemon.output)")
    }
}
