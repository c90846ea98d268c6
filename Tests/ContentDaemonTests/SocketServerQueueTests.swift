@testable import ContentDaemon
import Foundation
import Glibc
import Logging
import Synchronization
import Testing
import TestSupport

/// The server loop in-process with small limits: a client that never reads keeps every state change until
/// its queue is full and is then dropped, its progress is coalesced, and a reading client meanwhile gets
/// everything.
@Suite("Daemon: bounded client queues")
struct SocketServerQueueTests {
    static func startServer(
        _ limits: SocketServer.Limits, log: CapturedLog = CapturedLog()
    ) throws -> (SocketServer, String, TemporaryDirectory) {
        let folder = try TemporaryDirectory("rpc")
        let path = folder.url.appendingPathComponent("s.sock").path
        let server = try SocketServer(
            listenFD: UnixSocket.listen(path: path), ownedPath: path, limits: limits,
            logger: Logger(label: "test") { _ in CapturedLog.Handler(log: log) })
        server.start()
        return (server, path, folder)
    }

    /// Subscribes a connected client through the server, as the `subscribe` method does.
    static func subscribe(_ client: RPCTestClient, _ server: SocketServer) async throws {
        client.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#)
        for await event in server.events {
            if case .request(let id, _) = event {
                server.post(.subscribe(client: id, true))
                server.post(.reply(client: id, Array(#"{"jsonrpc":"2.0","id":1,"result":{}}"#.utf8) + [10]))
                break
            }
        }
        #expect(client.readMessage(timeout: 10)?["id"] as? Int == 1)
    }

    static func line(_ index: Int, pad: Int) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","method":"download.state","params":{"n":\#(index),"pad":"\#(String(repeating: "x", count: pad))"}}"#.utf8) + [10]
    }

    @Test func aClientThatNeverReadsIsDroppedAndOthersGetEverything() async throws {
        var limits = SocketServer.Limits()
        limits.maximumQueued = 64
        let log = CapturedLog()
        let (server, path, folder) = try Self.startServer(limits, log: log)
        defer { withExtendedLifetime(folder) {} }
        let reader = try RPCTestClient(path: path)
        try await Self.subscribe(reader, server)
        let sleeper = try RPCTestClient(path: path)
        try await Self.subscribe(sleeper, server)

        // 4 000 state changes of 2 KiB, 32 at a time as the reader keeps up: far more than the sleeper's socket
        // buffers and its 64 queued lines; for the reader, a batch is posted only once it read the one before, so
        // at most 32 lines wait for it (posting at 64 behind, the limit itself, dropped it once under load).
        // The reader has a thread of its own (offPool): a busy cooperative pool must not make it the slow
        // client. Once it stops (dropped, or a read timed out), the producer stops waiting for it.
        let readCount = Mutex((seen: 0, reading: true))
        let reading = Task {
            try await offPool {
                var seen: [Int] = []
                while seen.count < 4000, let message = reader.readMessage(timeout: 60) {
                    if let n = (message["params"] as? [String: Any])?["n"] as? Int { seen.append(n) }
                    readCount.withLock { $0.seen = seen.count }
                }
                readCount.withLock { $0.reading = false }
                return seen
            }
        }
        for batch in stride(from: 0, to: 4000, by: 32) {
            let deadline = ContinuousClock.now + .seconds(60)  // a full suite on 2 cores starved the reader for over 20 s
            while readCount.withLock({ $0.reading && $0.seen < batch }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            for index in batch..<min(batch + 32, 4000) { server.post(.broadcast(Self.line(index, pad: 2048), progressOf: nil)) }
        }
        #expect(try await reading.value == Array(0..<4000), "the reading client lost or reordered a state change")
        #expect(sleeper.waitForClose(timeout: 20), "the client that never reads was not dropped")
        let lines = log.lines.withLock { $0 }
        #expect(lines.contains { $0.hasPrefix("warning daemon socket: dropped client ") && $0.contains("messages unread") }, "\(lines)")
        #expect(lines.filter { $0.contains("dropped client") }.count == 1, "only the sleeper is dropped: \(lines)")
        await server.stop()
    }

    @Test func progressIsCoalescedForASlowClientNotDropped() async throws {
        var limits = SocketServer.Limits()
        limits.maximumQueued = 64
        let (server, path, folder) = try Self.startServer(limits)
        defer { withExtendedLifetime(folder) {} }
        let slow = try RPCTestClient(path: path)
        try await Self.subscribe(slow, server)
        // 4 000 progress lines of one download, unread while they arrive: at most one stays queued, never 64.
        for index in 0..<4000 { server.post(.broadcast(Self.line(index, pad: 2048), progressOf: "d")) }
        server.post(.broadcast(Self.line(-1, pad: 10), progressOf: nil))
        var seen: [Int] = []
        while let message = slow.readMessage(timeout: 5) {
            if let n = (message["params"] as? [String: Any])?["n"] as? Int { seen.append(n) }
            if seen.last == -1 { break }
        }
        #expect(seen.last == -1, "the state change after the progress was lost; closed: \(slow.closedByPeer)")
        #expect(seen.dropLast().last == 3999, "the newest progress is delivered")
        #expect(seen.count < 4001, "progress was coalesced while unread")
        await server.stop()
    }
}

/// What a logger was given, a line each (`<level> <message>`), for tests that check what the daemon logs.
final class CapturedLog: Sendable {
    let lines = Mutex<[String]>([])

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}
