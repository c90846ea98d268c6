import ContentDelivery
import ContentDownloads
import Foundation
import Glibc
import Testing
import TestSupport

/// SIGTERM, kill -9 and a second daemon: the journal stays consistent and the next start carries on.
@Suite("Daemon: lifecycle", .serialized)
struct DaemonLifecycleTests {
    static let productID = "com.example.lifecycle"

    @Test func sigtermPausesCleanlyAndTheNextStartResumes() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 1m;")
        // Bytes are told a chunk (about 1 MiB) at a time as the chunks are placed: far from the end when told 1 MiB.
        let source = try fixture.publish(Self.productID, size: 16 << 20)
        let (first, _, reached) = try fixture.startPurchase(Self.productID, transactionID: "t-term", untilBytes: 1 << 20)
        #expect(reached, "\(first.output)")
        #expect(first.stop() == 0, "\(first.output)")
        #expect(!FileManager.default.fileExists(atPath: fixture.socketPath), "the socket file is removed on exit")
        let store = try Store(root: fixture.storeURL)
        let rows = try StoreOverview(store: store).downloads
        #expect(rows.map(\.state) == [.waiting], "a stopped transfer is left to resume: \(rows)")
        #expect(try StoreOverview(store: store).transactions.map(\.id) == ["t-term"])

        let second = try fixture.startDaemon()
        let again = try RPCTestClient(path: fixture.socketPath)
        _ = try again.result("subscribe")
        let finished = again.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" }
        #expect(finished != nil, "\(second.output)")
        let installed = try #require(store.contentURL(forProductID: Self.productID))
        #expect(try sameTree(source.path, installed.path))
        #expect(second.stop() == 0)
    }

    @Test func killedMidDownloadTheNextStartReattaches() async throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 1m;")
        let source = try fixture.publish(Self.productID, size: 12 << 20)
        let (first, _, reached) = try fixture.startPurchase(Self.productID, transactionID: "t-kill", untilBytes: 2 << 20)
        #expect(reached, "\(first.output)")
        first.kill(SIGKILL)
        #expect(first.wait(timeout: 30) == 128 + SIGKILL)
        #expect(FileManager.default.fileExists(atPath: fixture.socketPath), "a killed daemon leaves its socket file")

        let second = try fixture.startDaemon()  // replaces the dead socket file
        let again = try RPCTestClient(path: fixture.socketPath)
        let subscribed = try again.result("subscribe")  // the status as it is once notifications started
        let transactions = subscribed["transactions"] as? [[String: Any]] ?? []
        #expect(transactions.map { $0["id"] as? String } == ["t-kill"], "the transaction is reattached: \(subscribed)")
        let state = (transactions.first?["downloads"] as? [[String: Any]])?.first?["state"] as? String
        let finished = state == "finished"
            || again.waitForNotification(timeout: 60) { $0["method"] as? String == "download.finished" } != nil
        #expect(finished, "\(second.output)")
        let installed = try #require(try Store(root: fixture.storeURL).contentURL(forProductID: Self.productID))
        #expect(try sameTree(source.path, installed.path))
        // Resumed, not started over: at most the frames in flight are fetched twice (8 connections, ~1 MiB frames).
        let archive = try #require(try CatalogSource.load(fixture.catalogURL).catalog.product(Self.productID)?.length)
        #expect(fixture.archiveBytesSent() - Int(archive) < 8 << 20, "re-fetched \(fixture.archiveBytesSent() - Int(archive)) bytes")
        #expect(second.stop() == 0)
    }

    @Test func aSecondDaemonOnTheSameStoreIsRefused() async throws {
        let fixture = try DaemonFixture()
        let first = try fixture.startDaemon()
        _ = try RPCTestClient(path: fixture.socketPath)
        let otherSocket = fixture.root.appendingPathComponent("run/other.sock").path
        let second = try fixture.startDaemon(socket: otherSocket)
        #expect(second.wait(timeout: 30) == 1)
        #expect(second.output.contains("already driven by pid \(first.process.processIdentifier)"), "\(second.output)")
        #expect(!FileManager.default.fileExists(atPath: otherSocket))

        // Another store on the same socket path: refused too, and the first daemon keeps its socket.
        let third = try DaemonProcess.spawn(
            ["daemon", "--store", fixture.root.appendingPathComponent("other-store").path, "--socket", fixture.socketPath],
            log: fixture.root.appendingPathComponent("third.log"))
        #expect(third.wait(timeout: 30) == 1)
        #expect(third.output.contains("another daemon answers on \(fixture.socketPath)"), "\(third.output)")
        #expect(try RPCTestClient(path: fixture.socketPath).result("status")["installed"] != nil)
        #expect(first.stop() == 0)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"),
                   "needs systemd-socket-activate (package systemd; tools/setup installs it)"))
    func systemdSocketActivation() async throws {
        let fixture = try DaemonFixture()
        let socket = fixture.root.appendingPathComponent("activated.sock").path
        let daemon = try DaemonProcess.spawn(
            ["-l", socket, try CommandRunner.builtExecutable().path, "daemon", "--store", fixture.storeURL.path],
            log: fixture.root.appendingPathComponent("activated.log"), executable: "/usr/bin/systemd-socket-activate")
        let client = try RPCTestClient(path: socket)
        #expect(try client.result("status")["transactions"] != nil, "\(daemon.output)")
        #expect(daemon.stop() == 0, "\(daemon.output)")
        #expect(daemon.output.contains("listening on \(socket)"), "\(daemon.output)")
    }
}
