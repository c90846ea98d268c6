/// A receive-rate cap for a whole download, across its connections: a token bucket holding at most a tenth of a
/// second of the rate (at least 64 KiB), refilled with time. A connection takes tokens for every body buffer
/// libcurl hands it and pauses (`CURL_WRITEFUNC_PAUSE`) while the bucket is empty; the scheduler resumes it once
/// tokens are back.
///
/// Why not libcurl's `CURLOPT_MAX_RECV_SPEED_LARGE`: it is per handle (a cap shared by eight connections becomes eight
/// small caps that do not follow the work), and it averages from the transfer's start, so after a stall it lets the
/// download "catch up" far above the cap (measured: ~31 MB/s under a 4 MiB/s cap). The bucket only ever holds a tenth
/// of a second, so over any second at most the rate, the bucket and one receive buffer arrive.
struct RateBucket: Sendable, Equatable {
    /// Bytes per second.
    private(set) var rate: Int64
    /// The most tokens the bucket holds.
    private(set) var capacity: Int64
    private var tokens: Double
    private var last: Double

    /// A full bucket for `rate` bytes per second at time `now`.
    init(rate: Int64, now: Double) {
        self.rate = max(1, rate)
        capacity = max(64 << 10, self.rate / 10)
        tokens = Double(capacity)
        last = now
    }

    /// A new rate (the bucket keeps what it holds, up to the new capacity).
    mutating func setRate(_ bytesPerSecond: Int64, now: Double) {
        refill(now: now)
        rate = max(1, bytesPerSecond)
        capacity = max(64 << 10, rate / 10)
        tokens = min(tokens, Double(capacity))
    }

    /// Takes `count` bytes when any token is left (the bucket may go below zero by one buffer); false: pause.
    mutating func take(_ count: Int, now: Double) -> Bool {
        refill(now: now)
        guard tokens > 0 else { return false }
        tokens -= Double(count)
        return true
    }

    /// Seconds until a paused connection may go on (tokens above zero again).
    func wait(now: Double) -> Double {
        let current = tokens + (now - last) * Double(rate)
        return current > 0 ? 0 : -current / Double(rate) + 0.001
    }

    private mutating func refill(now: Double) {
        guard now > last else { return }
        tokens = min(Double(capacity), tokens + (now - last) * Double(rate))
        last = now
    }
}
