internal import CurlTransport
internal import CCurl
internal import Foundation

/// One blocking libcurl GET of a small document (a catalog, its signature, a manifest, TUF metadata, an entitlements
/// document): the body up to a limit, the response's `ETag`, and the bytes received. Callers turn a failure, a
/// status or a body past the limit into their own errors.
struct DocumentRequest {
    /// What came back.
    struct Response {
        /// The HTTP status (0 when the transfer failed before one arrived).
        var status = 0
        /// The body, at most the limit.
        var body = Data()
        /// The `ETag` header, when the server sent one.
        var etag: String?
        /// Header and body bytes received.
        var bytesReceived = 0
        /// Whether the body went past the limit (the transfer was cut there).
        var overflow = false
    }

    /// GETs `url` with `transport`'s settings and `headers`, stopping past `limit` body bytes; on a transfer error
    /// the thrown error comes with what had arrived (``Response/overflow`` tells a body cut at the limit). With
    /// `keepingPrefix` the body holds exactly the first `limit` bytes of a longer one (a server that answered a
    /// range request with the whole file).
    static func get(
        _ url: URL, transport: TransferSettings, headers: [String] = [], limit: Int, keepingPrefix: Bool = false
    ) -> (Response, CurlError?) {
        final class Sink {
            var response = Response()
            let limit: Int
            let keepsPrefix: Bool
            init(limit: Int, keepsPrefix: Bool) { (self.limit, self.keepsPrefix) = (limit, keepsPrefix) }
        }
        let sink = Sink(limit: limit, keepsPrefix: keepingPrefix)
        var handle: EasyHandle?
        do {
            let easy = try EasyHandle()
            handle = easy
            try easy.setURL(url.absoluteString)
            try easy.configureTransport(transport, headers: headers)
            try easy.set(CURLOPT_TIMEOUT, 60)
            if transport.lowSpeedTime > 0 {  // slow retrieval: a server that trickles is dropped like a stalled transfer
                try easy.set(CURLOPT_LOW_SPEED_LIMIT, max(1, transport.lowSpeedLimit))
                try easy.set(CURLOPT_LOW_SPEED_TIME, transport.lowSpeedTime)
            }
            let user = Unmanaged.passUnretained(sink).toOpaque()
            try easy.set(pointer: CURLOPT_WRITEDATA, user)
            try easy.set(pointer: CURLOPT_HEADERDATA, user)
            _ = CCurl_easy_setopt_write_function(easy.raw, CURLOPT_WRITEFUNCTION) { data, size, count, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                let n = size * count
                sink.response.bytesReceived += n
                guard sink.response.body.count + n <= sink.limit else {
                    if sink.keepsPrefix, let data {
                        sink.response.body.append(
                            UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: sink.limit - sink.response.body.count)
                    }
                    sink.response.overflow = true
                    return 0
                }
                if let data { sink.response.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: n) }
                return n
            }
            _ = CCurl_easy_setopt_write_function(easy.raw, CURLOPT_HEADERFUNCTION) { data, size, count, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                let n = size * count
                sink.response.bytesReceived += n
                if let data {
                    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)
                    if line.lowercased().hasPrefix("etag:") {
                        sink.response.etag = line.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                }
                return n
            }
            try easy.perform()
            sink.response.status = easy.responseCode
        } catch {
            // A prefix kept: the transfer was cut on purpose, after the status arrived.
            if keepingPrefix, sink.response.overflow { sink.response.status = handle?.responseCode ?? 0 }
            return (sink.response, error)
        }
        return (sink.response, nil)
    }
}
