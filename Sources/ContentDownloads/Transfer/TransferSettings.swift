/// Engine-wide libcurl settings: timeouts, stall detection, TLS and checkpoint cadence.
public struct TransferSettings: Sendable, Equatable {
    /// Seconds allowed to establish a connection.
    public var connectTimeout: Int = 15
    /// A transfer slower than ``lowSpeedLimit`` bytes/s for ``lowSpeedTime`` seconds is a stall.
    public var lowSpeedLimit: Int = 1
    /// Seconds below ``lowSpeedLimit`` before the transfer is abandoned (and retried).
    public var lowSpeedTime: Int = 30
    /// A PEM bundle of extra trusted CAs (`CURLOPT_CAINFO`); `nil` = system store.
    public var caFile: String?
    /// Maximum redirects followed.
    public var maxRedirects: Int = 5
    /// Checkpoint (fsync + record offset) after this many new bytes…
    ///
    /// 2 MiB: a kill -9 loses at most this plus what sat in socket buffers (issue 7's budget is
    /// 8 MiB re-fetched). Measured after a kill at 50 % (256 MiB, 64 MiB/s, nginx): 5.2–7.3 MiB with
    /// 4 MiB checkpoints, 4.1–5.5 MiB with 2 MiB; the rest is data in flight. ~500 fsyncs per GiB.
    public var checkpointBytes: Int64 = 2 << 20
    /// …or after this many seconds with new bytes, whichever comes first.
    public var checkpointInterval: Double = 1.0
    /// Bytes gathered in memory before one `write(2)`.
    public var writeBufferSize: Int = 1 << 20
    /// Write whole aligned buffers of the partial file with `O_DIRECT` (no page-cache copy).
    ///
    /// Off by default: the overlapped install reads the partial file right behind the transfer,
    /// and from the page cache that read is a memory copy; after a direct write it goes to the
    /// device. Worth turning on when nobody reads the archive soon (`download --no-install`).
    public var directWrites: Bool = false

    /// Creates default settings.
    public init() {}
}
