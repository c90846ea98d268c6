/// Engine-wide libcurl settings: timeouts, stall detection, TLS, how requests identify themselves, and checkpoint cadence.
///
/// The connection and identity settings (``caFile``, ``proxy``, ``clientCertificate``, ``clientKey``, ``userAgent``,
/// ``headers``, ``connectTimeout``, ``maxRedirects``) apply to every request the module makes: the catalog and its
/// signature (``CatalogSource/load(_:transport:)-2yqgz``), manifests and archives. So a service whose server wants a
/// bearer token, a client certificate or a corporate proxy sets them once, in ``DownloadOptions/transfer``.
public struct TransferSettings: Sendable, Equatable {
    /// Seconds allowed to establish a connection.
    public var connectTimeout: Int = 15
    /// A transfer slower than ``lowSpeedLimit`` bytes/s for ``lowSpeedTime`` seconds is a stall.
    public var lowSpeedLimit: Int = 1
    /// Seconds below ``lowSpeedLimit`` before the transfer is abandoned (and retried).
    public var lowSpeedTime: Int = 30
    /// A PEM bundle of extra trusted CAs (`CURLOPT_CAINFO`); `nil` = system store.
    public var caFile: String?
    /// The proxy every request goes through (`CURLOPT_PROXY`: `http://host:port`, `socks5h://host:port`, …).
    ///
    /// `nil` leaves libcurl's default, which honours the `http_proxy`, `https_proxy` and `no_proxy` environment
    /// variables; an empty string turns proxies off even when those are set.
    public var proxy: String?
    /// A PEM client certificate presented to servers that ask for one (`CURLOPT_SSLCERT`); `nil` = none.
    public var clientCertificate: String?
    /// The private key of ``clientCertificate`` (`CURLOPT_SSLKEY`, PEM, unencrypted); `nil` = in the certificate file.
    public var clientKey: String?
    /// The `User-Agent` sent with every request, so servers can tell clients and versions apart; empty = none.
    public var userAgent: String = TransferSettings.defaultUserAgent
    /// Extra request headers, each one `Name: value` line (`Authorization: Bearer …`), sent after the module's own.
    ///
    /// The module sets `Accept-Encoding: identity` (archive bytes must arrive exactly as signed), `Range` and
    /// `If-Range` (resuming) itself: a header of one of those names, a line without a colon or with a line break
    /// fails the request with a message naming it, rather than being sent or dropped unseen.
    public var headers: [String] = []
    /// Maximum redirects followed.
    public var maxRedirects: Int = 5
    /// Checkpoint (fsync + record offset) after this many new bytes…
    ///
    /// Periodic checkpoints are fsynced on the engine's `iap-fsync` thread while bytes keep
    /// arriving. They bound what a *power loss* re-fetches: a `kill -9` leaves the page cache
    /// behind, so a restart in the same boot keeps every byte written
    /// (the transfer request's `keepsWrittenTail`) and re-fetches only what sat in buffers and sockets.
    /// Until that rule, the checkpoints also bounded the kill -9 re-fetch (its budget was
    /// 8 MiB), which held them at 1 MiB with a 3 MiB lag limit: about 1 000 fsyncs per GiB, and the
    /// transfer thread waited for the device whenever it was slow. Measured on a 1 GiB download from
    /// loopback nginx, 5 interleaved rounds on a throttled device (`curl -o` 2.28 s): 1 MiB / 3 MiB
    /// 5.15 s, 2 MiB / 8 MiB 4.05 s, 1 MiB / 16 MiB 3.36 s, 4 MiB / 16 MiB 3.25 s; kill -9 at 50 % with
    /// 4 MiB / 16 MiB re-fetched 4.4–6.8 MiB (socket buffers and the write buffer).
    public var checkpointBytes: Int64 = 4 << 20
    /// The checkpoint distance of a chunk plan: what a power loss may re-fetch.
    ///
    /// A checkpoint there fsyncs every file written since the last one (and ext4 commits its journal each time);
    /// every 4 MiB that cost a 1 GiB download 0.2–0.4 s against 32 MiB. A `kill -9` re-fetches far less: the
    /// placed-chunks log (`PlacedChunks`) counts in the same boot what the killed run had written.
    public var chunkedCheckpointBytes: Int64 = 32 << 20
    /// …or after this many seconds with new bytes, whichever comes first.
    public var checkpointInterval: Double = 1.0
    /// How far the durable offset may trail the bytes received before the transfer thread stops
    /// to fsync inline (the background fsync did not keep up): what a power loss may re-fetch.
    public var durableLagLimit: Int64 = 16 << 20
    /// Connections a chunk plan opens at first (spread over the mirrors; over HTTP/2 twice as many streams,
    /// `initialConnections`); doubled each second while that still
    /// raises the throughput by a tenth, up to ``maxConnections`` (a step that added less is undone), and halved
    /// when a server answers 429/503.
    ///
    /// Why more than one: CDNs and busy origins cap each connection (nginx `limit_rate`), and on a long round trip
    /// one connection's window limits it; `aria2c -x8` is the usual answer. Each connection holds the part of
    /// one frame received so far, within the engine's ``frameMemoryBytes``.
    public var connections: Int = 4
    /// The most connections a chunk plan uses.
    public var maxConnections: Int = 16
    /// The frames an engine may have in flight, for all its downloads at once, while the network is the
    /// bottleneck: those being received and those waiting to be verified. A connection admits each frame before
    /// its first byte and pauses while it does not fit; a frame larger than this goes alone. Memory becomes
    /// resident as bytes arrive, so a connection holds about half a frame on average (frames average 1 MiB).
    ///
    /// Why bounded per engine and not per connection: memory then follows the bytes in flight, not connections ×
    /// downloads × the largest frame (docs/PERFORMANCE.md has the peak RSS of both).
    public var frameMemoryBytes: Int = 16 << 20
    /// The frames an engine may have in flight while the verifiers are the bottleneck (frames waited for one most
    /// of the last quarter second): enough for one frame being verified and one arriving, since more would only
    /// wait in their queue.
    public var queuedFrameMemoryBytes: Int = 3 << 20
    /// The HTTP version every request asks for: each of a chunk plan's connections its own TCP connection
    /// (``HTTPVersion/http1_1``, the default), or its streams multiplexed over one connection per server
    /// (``HTTPVersion/http2``).
    ///
    /// Why HTTP/1.1 by default: CDNs and busy origins cap each TCP connection, and the streams of one HTTP/2
    /// connection share its cap (`tools/bench-wan --http2` measures both; docs/PERFORMANCE.md has the figures).
    public var httpVersion: HTTPVersion = .http1_1
    /// The connections a chunk plan opens at first: ``connections`` over HTTP/1.1; twice as many streams over HTTP/2
    /// (at most ``maxConnections``), since a stream costs neither a handshake nor a TCP slow start of its own. The
    /// tuner grows and steps back from there as it does for connections.
    ///
    /// Why: behind a server that caps each request, a first second at 4 streams fetches half of what aria2c's 8
    /// connections do (`tools/bench-wan --http2`, docs/PERFORMANCE.md).
    package var initialConnections: Int {
        httpVersion == .http2 ? min(maxConnections, 2 * connections) : connections
    }

    /// A connection of a chunk plan that receives nothing for this long while another mirror is up is dropped with
    /// its mirror, and its chunks are fetched from the others (with one mirror, ``lowSpeedTime``
    /// decides).
    public var stallSeconds: Double = 3
    /// How long an engine leaves alone a mirror that a chunk plan dropped for refusing (429 or 503 three times), or
    /// the last refusal's `Retry-After` when that is longer (at most an hour): the next downloads of the same process
    /// (the daemon's; a paused or failed one that starts again too) skip its origin while another mirror is up (or
    /// give it one connection, after its `Retry-After`, when none is), then try it again. Per origin
    /// (`scheme://host:port`). Why: a mirror that rate-limits stays so for minutes; asking it again at every
    /// download of a daemon costs each download its refusals and their `Retry-After`. 0: remember nothing.
    public var refusingMirrorRestSeconds: Double = 300
    /// Archive bytes between two needed chunks that a chunk plan reads through (and drops) rather than start
    /// another request: a request costs a round trip, which at 40 ms and 4 MB/s is worth 160 KB.
    public var rangeGapBytes: Int64 = 128 << 10
    /// The most ranges one request of a chunk plan asks for (`Range: bytes=a-b,c-d,…`), where the server proved it
    /// answers several ranges correctly (1: one range per request).
    ///
    /// Why: an update's changed chunks lie scattered; a range per request costs a round trip per run of chunks on
    /// each connection, while one request for many ranges costs one. A server that answers several ranges with the
    /// whole archive (nginx past `max_ranges`) or a malformed reply is asked for one range at a time from then on.
    public var maxRangesPerRequest: Int = 16
    /// Bytes gathered in memory before one `write(2)`.
    public var writeBufferSize: Int = 1 << 20
    /// Write whole aligned buffers of the partial file with `O_DIRECT` (no page-cache copy).
    ///
    /// Off by default: the overlapped install reads the partial file right behind the transfer,
    /// and from the page cache that read is a memory copy; after a direct write it goes to the
    /// device. Worth turning on when nobody reads the archive soon (`download --no-install`).
    public var directWrites: Bool = false

    /// libcurl's receive buffer (`CURLOPT_BUFFERSIZE`) for a transfer capped at `cap` bytes per second (0 = none).
    ///
    /// Uncapped: 256 KiB, fewer callbacks per gigabyte. Capped: about `cap / 128`, between 16 and 256 KiB.
    /// libcurl 7.88 reads up to 100 buffers per `curl_multi_perform` while the socket stays readable
    /// and only then checks `CURLOPT_MAX_RECV_SPEED_LARGE`, so a 256 KiB buffer let a 4 MiB/s cap
    /// pass 16 MiB from loopback nginx in 0.1 s (measured; 32 KiB buffers: 3.9 s, as capped). The
    /// buffer is fixed when the transfer starts; a later `TransferEngine.setRate(_:bytesPerSecond:)`
    /// still holds the average, in larger bursts.
    public static func receiveBufferSize(forCap cap: Int64) -> Int {
        let uncapped = 256 << 10
        guard cap > 0 else { return uncapped }
        return Int(min(Int64(uncapped), max(16 << 10, cap / 128)))
    }

    /// The ``userAgent`` unless a service sets its own (the CLI sends `iapcontent/<version>`): the module's name.
    public static let defaultUserAgent = "iapcontent-downloads"

    /// Tests only: seconds the fsync thread waits before each checkpoint fsync (a slow device).
    var checkpointSyncDelayForTesting: Double = 0

    /// Creates default settings.
    public init() {}
}

/// The HTTP version requests ask for (``TransferSettings/httpVersion``).
public enum HTTPVersion: String, Sendable, Equatable, CaseIterable {
    /// HTTP/1.1: one request at a time per TCP connection; a chunk plan's connections are separate connections.
    case http1_1 = "1.1"
    /// HTTP/2: over TLS when the server agrees (ALPN), else HTTP/1.1; over cleartext `http:` with prior knowledge
    /// (the server must speak HTTP/2 without an upgrade, as nginx's `listen … http2` does). A chunk plan's
    /// connections become streams of one connection per server.
    case http2 = "2"
}
