import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A lying S3 server on 127.0.0.1 for the prune and timeout tests: every request goes to a scripted `reply`
/// (which can answer anything, or nothing at all), and every request is recorded, so a test can assert exactly which
/// DELETEs a client sent. It checks no signature, serves one connection at a time (keep-alive), and stops on
/// ``stop()`` or by itself after `lifetime` seconds; a connection it holds silent ends when the client closes it or
/// at that deadline.
final class HostileObjectStoreServer: Sendable {
    /// One request seen.
    struct Request: Sendable, Equatable, CustomStringConvertible {
        /// `GET`, `DELETE`, …
        var method: String
        /// The path, percent-decoded (`/bkt/store/catalog.json`).
        var path: String
        /// The query items, percent-decoded.
        var query: [String: String]

        /// `METHOD /path`.
        var description: String { "\(method) \(path)" }
    }

    /// What the server does with a request.
    enum Reply: Sendable {
        /// Answer `status` with `body`.
        case answer(Int, Data)
        /// Read the request and never answer (the client's stall timeout must end it).
        case silence
    }

    private struct State {
        var requests: [Request] = []
        var stopped = false
    }

    /// The port.
    let port: Int
    private let listener: Int32
    private let state = Mutex(State())
    private let reply: @Sendable (Request) -> Reply

    /// `http://127.0.0.1:<port>`.
    var endpoint: String { "http://127.0.0.1:\(port)" }
    /// Every request so far, in order.
    var requests: [Request] { state.withLock { $0.requests } }
    /// The paths of every DELETE so far.
    var deletes: [String] { requests.filter { $0.method == "DELETE" }.map(\.path) }

    /// Starts answering with `reply`, for at most `lifetime` seconds.
    init(lifetime: Double = 60, reply: @escaping @Sendable (Request) -> Reply) throws {
        self.reply = reply
        (listener, port) = try LoopbackListener.open(backlog: 16)
        let deadline = Date().addingTimeInterval(lifetime)
        let thread = Thread { [self] in acceptLoop(until: deadline) }
        thread.name = "hostile-s3"
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting (idempotent).
    func stop() {
        let first = state.withLock { s in
            defer { s.stopped = true }
            return !s.stopped
        }
        if first { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop(until deadline: Date) {
        LoopbackListener.acceptEach(on: listener, until: deadline, stopped: { state.withLock { $0.stopped } }) { client in
            serve(client, until: deadline)
            close(client)
        }
        stop()
    }

    /// Serves the requests of one connection until the client closes it, a read waits 5 s, or the deadline.
    private func serve(_ fd: Int32, until deadline: Date) {
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8]()
        var idle = 0
        func receive() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while Date() < deadline, !state.withLock({ $0.stopped }) {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    buffer.append(contentsOf: chunk[0..<n])
                    idle = 0
                    return true
                }
                if n == 0 { return false }
                idle += 1
                if idle >= 5 { return false }
            }
            return false
        }
        while true {
            var headEnd: Int?
            while headEnd == nil {
                if let end = Self.headerEnd(buffer) { headEnd = end; break }
                guard receive() else { return }
            }
            let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count >= 2 else { return }
            var length = 0
            for line in lines where line.lowercased().hasPrefix("content-length:") {
                length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
            }
            buffer.removeFirst(headEnd! + 4)
            while buffer.count < length { guard receive() else { return } }
            buffer.removeFirst(length)
            let target = String(requestLine[1])
            let rawPath = String(target.prefix { $0 != "?" })
            var query: [String: String] = [:]
            if let mark = target.firstIndex(of: "?") {
                for item in target[target.index(after: mark)...].split(separator: "&") {
                    let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let name = String(pair[0]).removingPercentEncoding ?? String(pair[0])
                    query[name] = pair.count > 1 ? (String(pair[1]).removingPercentEncoding ?? String(pair[1])) : ""
                }
            }
            let request = Request(method: String(requestLine[0]), path: rawPath.removingPercentEncoding ?? rawPath, query: query)
            state.withLock { $0.requests.append(request) }
            switch reply(request) {
            case .silence:
                // Hold the connection without a byte until the client gives up or the server's time is over.
                var chunk = [UInt8](repeating: 0, count: 4096)
                while Date() < deadline, !state.withLock({ $0.stopped }) {
                    let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return }
                }
                return
            case .answer(let status, let body):
                let head = "HTTP/1.1 \(status) X\r\nContent-Length: \(body.count)\r\nContent-Type: application/xml\r\n\r\n"
                Self.sendAll(fd, Array(head.utf8) + (request.method == "HEAD" ? [] : [UInt8](body)))
            }
        }
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            offset += n
        }
    }
}
