import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A small S3 server on 127.0.0.1 that honours conditional writes and records every request as it came off the
/// wire (request line, headers, body), so tests can hold each request `publish` and `prune` send against the S3
/// API reference.
///
/// It keeps objects in memory and answers the operations the publisher uses: GetObject, HeadObject, PutObject
/// (with `If-None-Match: *` and `If-Match`), CreateMultipartUpload, UploadPart, CompleteMultipartUpload (with
/// `If-None-Match: *`), AbortMultipartUpload, ListObjectsV2 (one page) and DeleteObject. It checks no signature.
/// Each connection is served on its own thread (the parts of a multipart upload arrive in parallel); it stops on
/// ``stop()`` or after `lifetime` seconds.
final class RecordingObjectStore: Sendable {
    /// One request seen.
    struct Record: Sendable {
        /// `GET`, `PUT`, …
        var method: String
        /// The path, percent-encoded as sent (`/bucket/key`).
        var path: String
        /// The query items by name (`uploads` → "").
        var query: [String: String]
        /// Headers by lowercased name.
        var headers: [String: String]
        /// The body.
        var body: Data
        /// The status answered.
        var status: Int
        /// The key under the bucket (percent-decoded), empty for a bucket request.
        var key: String
        /// The ETag answered, if any (for a write: the ETag the object now has).
        var etag: String?
    }

    private struct Object {
        var data: Data
        var etag: String
        var written: Date
    }

    private struct State {
        var objects: [String: Object] = [:]
        var uploads: [String: [Int: Data]] = [:]
        var records: [Record] = []
        var counter = 0
        var stopped = false
    }

    /// The bucket it serves.
    let bucket = "iap"
    /// The port.
    let port: Int
    private let listener: Int32
    private let state = Mutex(State())

    /// `http://127.0.0.1:<port>`.
    var endpoint: String { "http://127.0.0.1:\(port)" }
    /// Every request so far, in order.
    var records: [Record] { state.withLock { $0.records } }
    /// Forgets the requests recorded so far (the objects stay).
    func clearRecords() { state.withLock { $0.records = [] } }
    /// The environment a publisher signs with.
    var credentials: [String: String] {
        ["AWS_ACCESS_KEY_ID": "recorder", "AWS_SECRET_ACCESS_KEY": "recorder-secret", "AWS_REGION": "us-east-1",
         "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "", "AWS_CA_BUNDLE": ""]
    }
    /// The stored bytes of `key`, if any.
    func object(_ key: String) -> Data? { state.withLock { $0.objects[key]?.data } }

    /// Starts serving, for at most `lifetime` seconds.
    init(lifetime: Double = 120) throws {
        (listener, port) = try LoopbackListener.open(backlog: 64)
        let deadline = Date().addingTimeInterval(lifetime)
        let thread = Thread { [self] in acceptLoop(until: deadline) }
        thread.name = "recording-s3"
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
            let thread = Thread { [self] in
                serve(client)
                close(client)
            }
            thread.start()
        }
        stop()
    }

    /// Serves the requests of one connection until the client closes it (or is idle 5 s).
    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var headEnd: Int?
            while headEnd == nil {
                if let end = Self.headerEnd(buffer) { headEnd = end; break }
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
            let length = Int(headers["content-length"] ?? "0") ?? 0
            if headers["expect"]?.lowercased() == "100-continue" { Self.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
            buffer.removeFirst(headEnd! + 4)
            while buffer.count < length {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return }
                buffer.append(contentsOf: chunk[0..<n])
            }
            let body = Data(buffer[0..<length])
            buffer.removeFirst(length)
            let method = String(requestLine[0])
            let target = String(requestLine[1])
            let (status, replyHeaders, replyBody) = answer(method: method, target: target, headers: headers, body: body)
            var response = "HTTP/1.1 \(status) X\r\nContent-Length: \(replyBody.count)\r\n"
            for (name, value) in replyHeaders { response += "\(name): \(value)\r\n" }
            Self.sendAll(fd, Array((response + "\r\n").utf8) + (method == "HEAD" ? [] : [UInt8](replyBody)))
        }
    }

    /// The answer to one request, recorded with it.
    private func answer(method: String, target: String, headers: [String: String], body: Data) -> (Int, [(String, String)], Data) {
        let path = String(target.prefix { $0 != "?" })
        var query: [String: String] = [:]
        if let mark = target.firstIndex(of: "?") {
            for item in target[target.index(after: mark)...].split(separator: "&") {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query[String(parts[0]).removingPercentEncoding ?? String(parts[0])] =
                    parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            }
        }
        let bucketPrefix = "/\(bucket)/"
        let key = path.hasPrefix(bucketPrefix) ? (String(path.dropFirst(bucketPrefix.count)).removingPercentEncoding ?? "") : ""
        return state.withLock { s in
            let reply = Self.operate(&s, method: method, key: key, query: query, headers: headers, body: body)
            s.records.append(Record(
                method: method, path: path, query: query, headers: headers, body: body, status: reply.0, key: key,
                etag: reply.1.first { $0.0 == "ETag" }?.1))
            return reply
        }
    }

    private static func operate(
        _ s: inout State, method: String, key: String, query: [String: String], headers: [String: String], body: Data
    ) -> (Int, [(String, String)], Data) {
        let preconditionFailed = (412, [("Content-Type", "application/xml")],
                                  Data("<Error><Code>PreconditionFailed</Code><Message>condition</Message></Error>".utf8))
        func newETag() -> String {
            s.counter += 1
            return "\"e\(s.counter)\""
        }
        func conditionFails() -> Bool {
            let existing = s.objects[key]
            if headers["if-none-match"] == "*", existing != nil { return true }
            if let match = headers["if-match"], existing?.etag != match { return true }
            return false
        }
        switch method {
        case "GET" where query["list-type"] == "2":
            let prefix = query["prefix"] ?? ""
            var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><IsTruncated>false</IsTruncated>"
            let formatter = ISO8601DateFormatter()
            for (name, object) in s.objects.sorted(by: { $0.key < $1.key }) where name.hasPrefix(prefix) {
                xml += "<Contents><Key>\(name)</Key><Size>\(object.data.count)</Size>"
                    + "<LastModified>\(formatter.string(from: object.written))</LastModified><ETag>\(object.etag)</ETag></Contents>"
            }
            return (200, [("Content-Type", "application/xml")], Data((xml + "</ListBucketResult>").utf8))
        case "GET", "HEAD":
            guard let object = s.objects[key] else { return (404, [], Data()) }
            return (200, [("ETag", object.etag)], object.data)
        case "PUT" where query["uploadId"] != nil:
            guard let id = query["uploadId"], s.uploads[id] != nil, let number = Int(query["partNumber"] ?? "") else {
                return (404, [], Data())
            }
            s.uploads[id]![number] = body
            return (200, [("ETag", "\"part-\(number)-\(body.count)\"")], Data())
        case "PUT":
            if conditionFails() { return preconditionFailed }
            let etag = newETag()
            s.objects[key] = Object(data: body, etag: etag, written: Date())
            return (200, [("ETag", etag)], Data())
        case "POST" where query["uploads"] != nil:
            s.counter += 1
            let id = "upload-\(s.counter)"
            s.uploads[id] = [:]
            let xml = "<InitiateMultipartUploadResult><Bucket>iap</Bucket><Key>\(key)</Key><UploadId>\(id)</UploadId></InitiateMultipartUploadResult>"
            return (200, [("Content-Type", "application/xml")], Data(xml.utf8))
        case "POST" where query["uploadId"] != nil:
            guard let id = query["uploadId"], let parts = s.uploads[id] else { return (404, [], Data()) }
            if conditionFails() { return preconditionFailed }
            var data = Data()
            for number in parts.keys.sorted() { data.append(parts[number]!) }
            let etag = newETag()
            s.objects[key] = Object(data: data, etag: etag, written: Date())
            s.uploads[id] = nil
            let xml = "<CompleteMultipartUploadResult><Key>\(key)</Key><ETag>\(etag)</ETag></CompleteMultipartUploadResult>"
            return (200, [("Content-Type", "application/xml")], Data(xml.replacingOccurrences(of: "\"", with: "&quot;").utf8))
        case "DELETE" where query["uploadId"] != nil:
            s.uploads[query["uploadId"]!] = nil
            return (204, [], Data())
        case "DELETE":
            s.objects[key] = nil
            return (204, [], Data())
        default:
            return (501, [], Data())
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
extension RecordingObjectStore: PublishTestServer {
    /// Anonymous reads are plain GETs (it checks no signature).
    func publicURL(_ key: String) -> String { "\(endpoint)/\(bucket)/\(key)" }
}
