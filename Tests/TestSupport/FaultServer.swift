public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 serving one body, with scripted faults per request.
///
/// Request *n* (0-based) gets `faults[n]` (``Fault/none`` past the end). Without a fault it behaves
/// like a correct server: honours `Range` (206 + `Content-Range`), `If-Range` against the current
/// ETag (a mismatch gets 200 with the whole body), answers 416 with `*/len` past the end, and
/// closes every connection after one response. It records every request (target, headers, status,
/// body bytes sent), stops on ``stop()``, and stops by itself after `lifetime` seconds. Given
/// `requiredHeaders`, a request lacking one of them (or with another value) gets 401, as an API gateway
/// answers a missing token. It serves any target, so it also stands in for a plain HTTP proxy.
public final class FaultServer: Sendable {
    /// One scripted misbehaviour.
    public enum Fault: Sendable, Equatable {
        /// Behave.
        case none
        /// Send headers for the requested range, then close after absolute body offset `at`.
        case dropConnection(at: Int)
        /// Reply with `status` (and `Retry-After` if given), no body.
        case status(Int, retryAfter: Int?)
        /// Send up to absolute offset `at`, then send nothing for `seconds`, then close.
        case stall(at: Int, seconds: Double)
        /// Ignore `Range`: 200 with the whole body.
        case ignoreRange
        /// From this request on, the ETag is `etag` (as if the file was republished).
        case changeETag(String)
        /// Flip one byte at absolute offset `at` in the body sent.
        case wrongByte(at: Int)
        /// Send the whole body plus `extra` bytes, without Content-Length (close-delimited).
        case longerBody(extra: Int)
        /// Reply 416 with `Content-Range: bytes */<length>`.
        case rangeNotSatisfiable
        /// Reply 302 with `Location: <location>` (a mirror that sends the client elsewhere).
        case redirect(String)
    }

    /// What the server saw and did for one request.
    public struct Record: Sendable, Equatable {
        /// The request target: `/path` from a client, `http://host/path` from a client using it as its proxy.
        public var target: String
        /// Every request header, by lowercased name.
        public var headers: [String: String]
        /// When the request had arrived (its headers read).
        public var arrival: Date
        /// The `Range` header, if any.
        public var range: String? { headers["range"] }
        /// The `If-Range` header, if any.
        public var ifRange: String? { headers["if-range"] }
        /// The status sent.
        public var status: Int
        /// Body bytes actually written to the socket.
        public var bodyBytesSent: Int
    }

    struct State {
        var faults: [Fault]
        var etag: String
        var records: [Record] = []
        var stopped = false
        var requestCount = 0
        var inFlight = 0
        var peakInFlight = 0
    }

    /// The body served.
    public let body: [UInt8]
    /// The port.
    public let port: Int
    /// Pause between 64 KiB body chunks, to keep transfers in flight (0 = full speed).
    public let chunkDelay: Double
    /// Seconds each request waits before its reply (a slow origin).
    public let replyDelay: Double
    /// Headers every request must carry (lowercased name → value); otherwise 401.
    public let requiredHeaders: [String: String]
    private let listener: Int32
    private let state: Mutex<State>

    /// `http://127.0.0.1:<port>/<name>`.
    public func url(_ name: String = "archive.bin") -> String { "http://127.0.0.1:\(port)/\(name)" }

    /// Starts serving `body` with `faults`, for at most `lifetime` seconds.
    public init(
        body: [UInt8], faults: [Fault] = [], etag: String = "\"v1\"", chunkDelay: Double = 0, replyDelay: Double = 0,
        requiredHeaders: [String: String] = [:], lifetime: Double = 120
    ) throws {
        self.body = body
        self.chunkDelay = chunkDelay
        self.replyDelay = replyDelay
        self.requiredHeaders = Dictionary(uniqueKeysWithValues: requiredHeaders.map { ($0.key.lowercased(), $0.value) })
        state = Mutex(State(faults: faults, etag: etag))
        (listener, port) = try LoopbackListener.open(backlog: 16)
        let deadline = Date().addingTimeInterval(lifetime)
        let thread = Thread { [self] in acceptLoop(until: deadline) }
        thread.name = "fault-server"
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting (idempotent); in-flight responses end at their next chunk.
    ///
    /// The listener is shut down under the same lock that marks the server stopped, and only the accept loop closes
    /// it, after it saw the mark: a shutdown can never reach the descriptor's number once it is closed and reused
    /// (by another server's listener or a client's connection in the same test process, which it would cut).
    public func stop() {
        state.withLock { s in
            guard !s.stopped else { return }
            s.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
        }
    }

    /// Every request so far, in arrival order.
    public var records: [Record] { state.withLock { $0.records } }
    /// The most requests it was answering at once (each connection carries one request).
    public var peakConcurrentRequests: Int { state.withLock { $0.peakInFlight } }
    /// Body bytes sent over all requests.
    public var totalBodyBytesSent: Int { records.reduce(0) { $0 + $1.bodyBytesSent } }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop(until deadline: Date) {
        defer { close(listener) }
        while !isStopped, Date() < deadline {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let thread = Thread { [self] in
                serve(client)
                close(client)
            }
            thread.start()
        }
        stop()
    }

    private func serve(_ fd: Int32) {
        guard let text = Self.readHead(fd) else { return }
        let headers = Self.headers(text)
        let target = text.prefix { $0 != "\r" }.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let (fault, etag, index) = state.withLock { s -> (Fault, String, Int) in
            let index = s.requestCount
            s.requestCount += 1
            let fault = index < s.faults.count ? s.faults[index] : .none
            if case .changeETag(let tag) = fault { s.etag = tag }
            s.records.append(Record(target: target, headers: headers, arrival: Date(), status: 0, bodyBytesSent: 0))
            s.inFlight += 1
            s.peakInFlight = max(s.peakInFlight, s.inFlight)
            return (fault, s.etag, index)
        }
        if replyDelay > 0 { usleep(UInt32(replyDelay * 1_000_000)) }
        var sent = 0
        if requiredHeaders.contains(where: { headers[$0.key] != $0.value }) {
            record(status: 401, at: index)
            send(fd, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        } else {
            sent = respond(fd, fault: fault, etag: etag, headers: headers, head: text.hasPrefix("HEAD ")) { self.record(status: $0, at: index) }
        }
        state.withLock {
            $0.records[index].bodyBytesSent = sent
            $0.inFlight -= 1
        }
    }

    /// Records the status of request `index` before its reply leaves, so a client that has read the reply sees it.
    private func record(status: Int, at index: Int) {
        state.withLock { $0.records[index].status = status }
    }

    /// The request line and headers, up to the blank line (`nil` when the client went away or sent too much).
    private static func readHead(_ fd: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0, request.count < 65536 else { return nil }
            request.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: request, as: UTF8.self)
    }

    /// Answers one request as `fault` scripts it, telling `status` the status before it is sent; returns the body
    /// bytes sent.
    /// A request for several ranges is answered as a server without multi-range support does (nginx past
    /// `max_ranges`): 200 with the whole body. A `HEAD` gets the head alone.
    private func respond(
        _ fd: Int32, fault: Fault, etag: String, headers: [String: String], head isHead: Bool, status: (Int) -> Void
    ) -> Int {
        let unsatisfiable = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(body.count)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        switch fault {
        case .status(let code, let retryAfter):
            var head = "HTTP/1.1 \(code) Scripted\r\nContent-Length: 0\r\nConnection: close\r\n"
            if let retryAfter { head += "Retry-After: \(retryAfter)\r\n" }
            status(code)
            send(fd, head + "\r\n")
            return 0
        case .rangeNotSatisfiable:
            status(416)
            send(fd, unsatisfiable)
            return 0
        case .redirect(let location):
            status(302)
            send(fd, "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return 0
        default: break
        }
        var start = 0, end = body.count
        var partial = false
        if fault != .ignoreRange, let range = headers["range"], range.hasPrefix("bytes="), !range.contains(","),
           let first = Int(range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false).first ?? ""),
           headers["if-range"] == nil || headers["if-range"] == etag
        {
            guard first < body.count else {
                status(416)
                send(fd, unsatisfiable)
                return 0
            }
            start = first
            if let last = range.split(separator: "-", omittingEmptySubsequences: false).dropFirst().first.flatMap({ Int($0) }) {
                end = min(body.count, last + 1)
            }
            partial = true
        }
        var payload = Array(body[start..<end])
        if case .wrongByte(let at) = fault, at >= start, at < end { payload[at - start] ^= 0xFF }
        var head = partial
            ? "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(start)-\(end - 1)/\(body.count)\r\n"
            : "HTTP/1.1 200 OK\r\n"
        head += "ETag: \(etag)\r\nAccept-Ranges: bytes\r\nConnection: close\r\n"
        if case .longerBody(let extra) = fault {
            payload += [UInt8](repeating: 0x41, count: extra)
        } else {
            head += "Content-Length: \(payload.count)\r\n"
        }
        status(partial ? 206 : 200)
        send(fd, head + "\r\n")
        return isHead ? 0 : sendBody(fd, payload, from: start, fault: fault)
    }

    /// Writes `payload` (the body from offset `start`) in 64 KiB chunks, cut or stalled as `fault` says.
    private func sendBody(_ fd: Int32, _ payload: [UInt8], from start: Int, fault: Fault) -> Int {
        var limit = payload.count
        if case .dropConnection(let at) = fault { limit = max(0, min(payload.count, at - start)) }
        if case .stall(let at, _) = fault { limit = max(0, min(payload.count, at - start)) }
        var position = 0
        while position < limit, !isStopped {
            let n = min(65536, limit - position)
            let written = payload[position..<(position + n)].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return position }
            position += written
            if chunkDelay > 0 { usleep(UInt32(chunkDelay * 1_000_000)) }
        }
        if case .stall(_, let seconds) = fault {
            let until = Date().addingTimeInterval(seconds)
            while Date() < until, !isStopped { usleep(50_000) }
        }
        return position
    }

    private func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    static func headers(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            result[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return result
    }
}

extension [UInt8] {
    var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 {
            return true
        }
        return false
    }
}
