internal import CCurl
internal import CurlTransport
internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// One request on its own libcurl easy handle, signed with libcurl's SigV4 (`CURLOPT_AWS_SIGV4`): the body is
/// read as it is sent (a file slice with `pread`: memory stays bounded whatever the object's size), the answer's
/// headers and body (up to `limit` bytes) are kept. Run it alone (``perform()``) or in a ``MultiHandle``.
///
/// - Important: Not thread-safe; used by the one thread that made it.
final class ObjectTransfer {
    /// The request.
    let request: ObjectRequest
    /// The handle.
    let easy: EasyHandle
    /// Body bytes handed to libcurl so far (progress).
    private(set) var sent: Int64 = 0
    private let reader: BodyReader
    private let sink: ResponseSink
    /// The client's connect timeout, for the message of a request that timed out.
    private let connectTimeout: TimeInterval
    /// The client's stall timeout, likewise.
    private let stallTimeout: TimeInterval
    /// The CA file https is checked against (`--ca-file`, `AWS_CA_BUNDLE`), for the message of a failed handshake.
    private let caFile: String?

    /// Prepares `request` for `client`'s region, endpoint and credentials, keeping at most `limit` body bytes.
    init(_ request: ObjectRequest, client: ObjectStoreClient, limit: Int) throws(PublishError) {
        self.request = request
        reader = try BodyReader(request.body, what: request.what)
        sink = ResponseSink(limit: limit)
        connectTimeout = max(client.connectTimeout, 0.001)
        stallTimeout = max(client.stallTimeout, 1)
        caFile = client.caFile
        do {
            easy = try EasyHandle()
            try configure(location: client.location, credentials: client.credentials, caFile: client.caFile)
        } catch {
            throw PublishError("cannot prepare the request for \(request.what): \(error)")
        }
    }

    private func configure(
        location: ObjectStoreLocation, credentials: ObjectStoreCredentials, caFile: String?
    ) throws(CurlError) {
        try easy.setURL(request.url)
        if let caFile { try easy.set(CURLOPT_CAINFO, caFile) }
        try easy.set(CURLOPT_AWS_SIGV4, "aws:amz:\(location.region):s3")
        try easy.set(CURLOPT_USERNAME, credentials.accessKeyID)
        try easy.set(CURLOPT_PASSWORD, credentials.secretAccessKey)
        // libcurl signs every header given here; with this one it signs "UNSIGNED-PAYLOAD" as the payload hash
        // (S3 requires the header; the body is then not hashed twice, and TLS guards it on the way).
        var headers = ["x-amz-content-sha256: UNSIGNED-PAYLOAD"] + request.wireHeaders
        if let token = credentials.sessionToken { headers.append("x-amz-security-token: \(token)") }
        try easy.set(CURLOPT_NOSIGNAL, 1)
        // A server that never accepts, or accepts and never answers, fails the request with a message instead of
        // holding the command: below 1 byte/s for the stall time is a stall.
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, Int((connectTimeout * 1000).rounded(.up)))
        try easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try easy.set(CURLOPT_LOW_SPEED_TIME, Int(stallTimeout.rounded(.up)))
        let me = Unmanaged.passUnretained(self).toOpaque()
        switch request.method {
        case .head:
            try easy.set(CURLOPT_NOBODY, 1)
        case .get:
            break
        case .put:
            try easy.set(CURLOPT_UPLOAD, 1)
            try easy.set(large: CURLOPT_INFILESIZE_LARGE, request.body.length)
        case .post:
            try easy.set(CURLOPT_POST, 1)
            try easy.set(large: CURLOPT_POSTFIELDSIZE_LARGE, request.body.length)
        case .delete:
            try easy.set(CURLOPT_CUSTOMREQUEST, "DELETE")
        }
        if request.method == .put || request.method == .post {
            try easy.set(pointer: CURLOPT_READDATA, me)
            _ = CCurl_easy_setopt_write_function(easy.raw, CURLOPT_READFUNCTION) { buffer, size, count, user in
                let transfer = Unmanaged<ObjectTransfer>.fromOpaque(user!).takeUnretainedValue()
                let n = transfer.reader.read(into: buffer!, capacity: size * count)
                if n > 0 { transfer.sent += Int64(n) }
                return n < 0 ? Int(CURL_READFUNC_ABORT) : n
            }
        }
        try easy.setHeaders(headers)
        try easy.set(pointer: CURLOPT_WRITEDATA, me)
        _ = CCurl_easy_setopt_write_function(easy.raw, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            let transfer = Unmanaged<ObjectTransfer>.fromOpaque(user!).takeUnretainedValue()
            let n = size * count
            if let data { transfer.sink.append(body: UnsafeRawBufferPointer(start: data, count: n)) }
            return n
        }
        try easy.set(pointer: CURLOPT_HEADERDATA, me)
        _ = CCurl_easy_setopt_write_function(easy.raw, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let transfer = Unmanaged<ObjectTransfer>.fromOpaque(user!).takeUnretainedValue()
            let n = size * count
            if let data { transfer.sink.header(line: UnsafeRawBufferPointer(start: data, count: n)) }
            return n
        }
    }

    /// Runs the request to its end on this thread.
    /// - Throws: ``PublishError``; ``timedOut`` tells a timeout (which the client does not retry) from other failures.
    func perform() throws(PublishError) -> ObjectResponse {
        do { try easy.perform() } catch {
            if error.code == .operationTimedOut { throw timeout() }
            throw failure(error)
        }
        return response
    }

    /// Whether the transfer ended on one of the timeouts (see ``timeout()``).
    private(set) var timedOut = false
    /// Whether the transfer failed on trust (the server's certificate, the CA file): retrying never helps.
    private(set) var trustFailed = false

    /// Whether the failure is one the client does not retry: a timeout, or a failure of trust.
    var isFinal: Bool { timedOut || trustFailed }

    /// The message of a request that hit the connect or the stall timeout: which one, after how long, and what to do.
    private func timeout() -> PublishError {
        timedOut = true
        let server = request.url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).prefix(3).joined(separator: "/")
        var connectTime: curl_off_t = 0
        _ = CCurl_easy_getinfo_off(easy.raw, CURLINFO_CONNECT_TIME_T, &connectTime)
        if connectTime == 0 {
            return PublishError("\(request.method.rawValue) \(request.what) timed out: no connection to \(server) within \(Self.seconds(connectTimeout)) (connect timeout); check the endpoint, the network and any firewall, then run the command again")
        }
        return PublishError("\(request.method.rawValue) \(request.what) stalled: \(server) moved less than 1 byte a second for \(Self.seconds(stallTimeout)) (stall timeout); check that the endpoint is an S3 server and the network is up, then run the command again (what was written stays)")
    }

    /// `15 s`, `1.5 s`.
    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// The answer (after the transfer finished).
    var response: ObjectResponse { ObjectResponse(status: easy.responseCode, headers: sink.headers, body: sink.body) }

    /// The message of a transfer that ended with `code` (in a multi handle).
    func failure(_ code: CURLcode) -> PublishError {
        if code == CURLE_OPERATION_TIMEDOUT { return timeout() }
        return failure(easy.error(for: code))
    }

    /// The message of a transfer that failed with `error`: a failure of trust (the server's certificate, the CA
    /// file) names the CA file in use and the option that sets it, since checking the network never helps there.
    private func failure(_ error: CurlError) -> PublishError {
        let prefix = "\(request.method.rawValue) \(request.what) failed: \(error)"
        guard error.trustAdvice != nil else { return PublishError("\(prefix); check the endpoint and the network") }
        trustFailed = true
        let trusted = caFile.map { "the CA file \($0) (--ca-file, AWS_CA_BUNDLE)" } ?? "the system's certificate authorities"
        switch error.code {
        case .unreadableCAFile:
            return PublishError("\(prefix); the CA file\(caFile.map { " \($0)" } ?? "") cannot be used: pass a readable PEM file of certificate authorities with --ca-file PATH (or AWS_CA_BUNDLE)")
        default:
            return PublishError("\(prefix); the server's certificate is not signed by \(trusted): pass the PEM file of the authority that signed it with --ca-file PATH (or AWS_CA_BUNDLE)")
        }
    }
}

/// Collects a response: headers (the last block, after any `100 Continue`) and up to `limit` body bytes.
private final class ResponseSink {
    var headers: [String: String] = [:]
    var body = Data()
    let limit: Int

    init(limit: Int) { self.limit = limit }

    func append(body bytes: UnsafeRawBufferPointer) {
        let room = limit - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
    }

    func header(line bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            headers = [:]  // a new status line: the headers of an interim 100 are not the answer's
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}

/// Hands a request body to libcurl: bytes in memory, or a file slice read with `pread` as libcurl asks.
private final class BodyReader {
    private let data: Data?
    private let descriptor: Int32
    private let start: Int64
    private let length: Int64
    private var offset: Int64 = 0
    private let what: String

    init(_ body: ObjectRequest.Body, what: String) throws(PublishError) {
        self.what = what
        switch body {
        case .none:
            data = nil; descriptor = -1; start = 0; length = 0
        case .data(let bytes):
            data = bytes; descriptor = -1; start = 0; length = Int64(bytes.count)
        case .file(let path, let from, let count):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw PublishError("cannot open \(path) to upload it as \(what): \(String(cString: strerror(errno))); check the catalog folder")
            }
            data = nil; descriptor = fd; start = from; length = count
        }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Copies the next bytes into `buffer`; 0 at the end, -1 on a read error.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let wanted = Int(min(Int64(capacity), length - offset))
        guard wanted > 0 else { return 0 }
        if let data {
            data.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + Int(offset), byteCount: wanted)
            }
            offset += Int64(wanted)
            return wanted
        }
        let got = pread(descriptor, buffer, wanted, off_t(start + offset))
        guard got > 0 else { return -1 }  // the file shrank or failed under us: abort rather than send short
        offset += Int64(got)
        return got
    }
}
