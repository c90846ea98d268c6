internal import CurlTransport
internal import CCurl

extension EasyHandle {
    /// Sets up an archive request: what every request shares (``configureTransport(_:headers:)``: TLS, proxy,
    /// User-Agent, the service's headers), stall detection, the receive buffer and rate cap, identity encoding, and
    /// a range from `offset` (to `last` inclusive when given; with `If-Range` when a validator is known); the body and
    /// header callbacks get `owner`. Shared by whole-archive, chunk-indexed and update transfers.
    func configureArchiveRequest(
        url: String, settings: TransferSettings, maxBytesPerSecond: Int64, offset: Int64, last: Int64? = nil, ifRange: String?,
        owner: UnsafeMutableRawPointer, body: curl_write_callback, header: curl_write_callback
    ) throws(CurlError) {
        try setURL(url)
        let isFile = url.lowercased().hasPrefix("file:")
        var own = isFile ? [] : ["Accept-Encoding: identity"]
        if !isFile, offset > 0 || last != nil, let ifRange { own.append("If-Range: \(ifRange)") }
        try configureTransport(settings, headers: own)
        try set(CURLOPT_LOW_SPEED_LIMIT, settings.lowSpeedLimit)
        try set(CURLOPT_LOW_SPEED_TIME, settings.lowSpeedTime)
        try set(CURLOPT_PIPEWAIT, 1)
        // A tuning knob, set best effort: libcurl 7.88 refuses a new size (CURLE_BAD_FUNCTION_ARGUMENT) for a
        // handle reused for the next run of an HTTP/2 connection; the size it had then stays.
        _ = CCurl_easy_setopt_long(raw, CURLOPT_BUFFERSIZE, TransferSettings.receiveBufferSize(forCap: maxBytesPerSecond))
        if maxBytesPerSecond > 0 { try set(large: CURLOPT_MAX_RECV_SPEED_LARGE, maxBytesPerSecond) }
        try set(pointer: CURLOPT_PRIVATE, owner)
        try set(pointer: CURLOPT_WRITEDATA, owner)
        try set(pointer: CURLOPT_HEADERDATA, owner)
        _ = CCurl_easy_setopt_write_function(raw, CURLOPT_WRITEFUNCTION, body)
        _ = CCurl_easy_setopt_write_function(raw, CURLOPT_HEADERFUNCTION, header)
        if let last { return try set(CURLOPT_RANGE, "\(offset)-\(last)") }
        guard offset > 0 else { return }
        if isFile {
            try set(large: CURLOPT_RESUME_FROM_LARGE, offset)
        } else {
            try set(CURLOPT_RANGE, "\(offset)-")
        }
    }
}

extension ResponseHead {
    /// Why a 206 reply cannot continue a download at `offset` of a `length`-byte archive (RFC 9110 §14.4, §13.1.5):
    /// a range other than the one asked for, or an ETag other than the one recorded; `nil` when it can.
    func partialContentRefusal(offset: Int64, length: Int64, validator: Validator?) -> TransferFailure? {
        guard let range = contentRange, range.first == offset, range.complete == length else {
            let got = contentRange.map { "\($0.first)-\($0.last)/\($0.complete.map(String.init) ?? "*")" }
            return .cannotResume(reason: "asked for bytes \(offset)- of \(length), server sent range \(got ?? "none")")
        }
        if let sent = validator?.etag, let now = etag, sent != now {
            return .cannotResume(reason: "the ETag changed from \(sent) to \(now)")
        }
        return nil
    }
}
