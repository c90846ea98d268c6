import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A stand-in S3 server on 127.0.0.1 that ignores every condition (`If-None-Match`, `If-Match`), as some
/// S3-compatible servers do: PUT always stores and answers 200, GET and HEAD serve what was stored (404 otherwise),
/// DELETE removes. It checks no signature. It records every request and stops on ``stop()`` or after `lifetime`.
public final class UnconditionalObjectStore: Sendable {
    /// One request seen.
    public struct Record: Sendable, Equatable {
        /// `GET`, `PUT`, …
        public var method: String
        /// The request target (path and query).
        public var target: String
        /// Request headers by lowercased name.
        public var headers: [String: String]
    }

    private struct State {
        var objects: [String: Data] = [:]
        var records: [Record] = []
        var stopped = false
    }

    /// The port.
    public let port: Int
    private let listener: Int32
    private let state = Mutex(State())

    /// `http://127.0.0.1:<port>`.
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    /// Every request so far, in order.
    public var records: [Record] { state.withLock { $0.records } }

    /// Starts serving, for at most `lifetime` seconds.
    public init(lifetime: Double = 120) throws {
        (listener, port) = try LoopbackListener.open(backlog: 16)
        let deadline = Date().addingTimeInterval(lifetime)
        let thread = Thread { [self] in acceptLoop(until: deadline) }
        thread.name = "unconditional-s3"
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting (idempotent).
    public func stop() {
        let first = state.withLock { s in
            defer { s.stopped = true }
            return !s.stopped
        }
        if first { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop(until deadline: Date) {
        LoopbackListener.acceptEach(on: listener, until: deadline, stopped: { state.withLock { $0.stopped } }) { client in
            serve(client)  // one connection at a time: a publisher's requests are sequential
            close(client)
        }
        stop()
    }

    /// Serves the requests of one connection until the client closes it.
    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var headEnd: Int?
            while headEnd == nil {
                if let range = findHeaderEnd(buffer) { headEnd = range; break }
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return }
                buffer.append(contentsOf: chunk[0..<n])
            }
            let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count >= 2 else { return }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let method = String(requestLine[0])
            let target = String(requestLine[1])
            let length = Int(headers["content-length"] ?? "0") ?? 0
            if headers["expect"]?.lowercased() == "100-continue" { sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
            buffer.removeFirst(headEnd! + 4)
            while buffer.count < length {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return }
                buffer.append(contentsOf: chunk[0..<n])
            }
            let body = Data(buffer[0..<length])
            buffer.removeFirst(length)
            let path = String(target.prefix { $0 != "?" })
            let reply: (Int, Data) = state.withLock { s in
                s.records.append(Record(method: method, target: target, headers: headers))
                switch method {
                case "PUT": s.objects[path] = body; return (200, Data())
                case "DELETE": s.objects[path] = nil; return (204, Data())
                case "GET", "HEAD": return s.objects[path].map { (200, $0) } ?? (404, Data())
                default: return (501, Data())
                }
            }
            let etag = "\"\(reply.1.count)-\(reply.1.hashValue & 0xffff)\""
            let response = "HTTP/1.1 \(reply.0) X\r\nContent-Length: \(reply.1.count)\r\nETag: \(etag)\r\n\r\n"
            sendAll(fd, Array(response.utf8) + (method == "HEAD" ? [] : [UInt8](reply.1)))
        }
    }

    private func findHeaderEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            offset += n
        }
    }
}
