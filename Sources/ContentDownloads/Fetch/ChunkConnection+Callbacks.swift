internal import CurlTransport
internal import CCurl

/// How a ``ChunkConnection`` judged a reply (``ChunkConnection/Verdict``).
enum ChunkReplyVerdict {
    /// Body bytes are taken.
    case accept
    /// The reply cannot serve the run; nothing of its body is taken.
    case reject(TransferFailure)
    /// The reply is not needed (another connection already reads this mirror's whole archive): no fault.
    case drop
}

extension ChunkConnection {
    /// libcurl's receive buffer for each connection over HTTP/1.1. Frames go to ``FrameMemory`` segments in libcurl's
    /// write-callback pieces anyway, and a plan runs up to ``TransferSettings/maxConnections`` of them.
    static let receiveBufferBytes = 64 << 10

    /// libcurl's receive buffer for each stream over HTTP/2: the most it reads ahead (512 KiB, libcurl's largest).
    ///
    /// Why larger than over HTTP/1.1: libcurl 7.88 holds at most this much of each stream (`stream->len =
    /// buffer_size` in its `http2.c`); when one stream's buffer is full it stops reading the connection, for every
    /// stream, until that stream's handle is driven. With 64 KiB the one connection of a multiplexed download moves
    /// about 64 KiB per stream per turn of the transfer loop, and falls far behind the per-stream cap whenever the
    /// loop runs late (`tools/bench-wan --http2`; docs/PERFORMANCE.md).
    static let streamReceiveBufferBytes = 512 << 10

    /// The receive buffer for a connection of `version`; under a cap of `rate` bytes a second (0: none) at most
    /// ``TransferSettings/receiveBufferSize(forCap:)``.
    static func receiveBufferBytes(_ version: HTTPVersion, rate: Int64) -> Int {
        let own = version == .http2 ? streamReceiveBufferBytes : receiveBufferBytes
        return rate > 0 ? min(own, TransferSettings.receiveBufferSize(forCap: rate)) : own
    }

    /// The chunks of the run in flight not begun yet (after the one arriving), in request order.
    var tail: ArraySlice<Int> {
        guard let run, nextInRun + 1 < run.chunks.count else { return [] }
        return run.chunks[(nextInRun + 1)...]
    }

    /// The rate this run has arrived at, once it has run half a second (``TailSplit``).
    func runRate(now: Double) -> Double? {
        now - requested >= 0.5 ? Double(received - receivedAtRequest) / (now - requested) : nil
    }

    /// The rate this connection has delivered at since its first body byte, once that is half a second old (the
    /// outlook of a growing connection count, ``ConnectionTuner/outlook(connectionRates:busy:cap:)``): its handshake
    /// and first request do not count, the round trips between its runs and its waits do.
    func deliveryRate(now: Double) -> Double? {
        guard let first = firstByte, now - first >= 0.5 else { return nil }
        return Double(received) / (now - first)
    }

    /// Seconds this connection needs to bring what is left of its run (the frame arriving and the chunks after
    /// it), at its run's rate or the rate it has delivered at since its first byte, whichever is higher: a run
    /// that has just started, or that waited for frame memory, has brought a fraction of what the connection
    /// carries, and at its own rate alone the last seconds read many times too long. `nil` without a run or a rate.
    func drainSeconds(now: Double) -> Double? {
        guard let run, nextInRun < run.chunks.count else { return nil }
        let rate = max(runRate(now: now) ?? 0, deliveryRate(now: now) ?? 0)
        guard rate > 0 else { return nil }
        let arriving = max(0, frameRange(of: run.chunks[nextInRun]).upperBound - position)
        let after = tail.reduce(Int64(0)) { $0 + Int64(scheduler.frameRange(of: $1).count) }
        return Double(arriving + after) / rate
    }

    /// The last request's time to its first byte and its body's time, in seconds (libcurl's timings), and the body
    /// bytes it brought; `nil` when libcurl has none.
    func replyTimings() -> (roundTrip: Double, bytes: Int64, seconds: Double)? {
        var pre: curl_off_t = 0, start: curl_off_t = 0, total: curl_off_t = 0
        guard CCurl_easy_getinfo_off(easy.raw, CURLINFO_PRETRANSFER_TIME_T, &pre) == CURLE_OK,
              CCurl_easy_getinfo_off(easy.raw, CURLINFO_STARTTRANSFER_TIME_T, &start) == CURLE_OK,
              CCurl_easy_getinfo_off(easy.raw, CURLINFO_TOTAL_TIME_T, &total) == CURLE_OK, start > pre
        else { return nil }
        return (Double(start - pre) / 1e6, received - receivedAtRequest, Double(total - start) / 1e6)
    }

    // MARK: Callbacks (transfer thread, inside curl_multi_perform)

    static let bodyCallback: curl_write_callback = { data, size, count, user in
        guard let user else { return 0 }
        let connection = Unmanaged<ChunkConnection>.fromOpaque(user).takeUnretainedValue()
        return connection.receive(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    static let headerCallback: curl_write_callback = { data, size, count, user in
        guard let user, let data else { return 0 }
        let connection = Unmanaged<ChunkConnection>.fromOpaque(user).takeUnretainedValue()
        connection.head.consume(line: String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self))
        return size * count
    }
}
