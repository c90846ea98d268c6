/// How much archive a request to a server that answers one range per request may read through between two chunks
/// it needs. Reading a gap costs its bytes; asking for the next chunk in a request of its own costs a round trip.
/// So a gap is worth reading while it takes less than a round trip at a connection's rate: on a far server
/// (150 ms) at a few MB/s per connection that is hundreds of KiB, so an update of scattered small files makes a
/// few requests instead of one per chunk.
///
/// Pure: the scheduler feeds it each run's time to first byte and its body's bytes and time (libcurl's timings).
struct GapBudget: Sendable, Equatable {
    /// Smoothed time from a request to its first byte (seconds), once measured.
    private(set) var roundTrip: Double?
    /// Smoothed rate of one connection's body (bytes per second), once measured.
    private(set) var bytesPerSecond: Double?

    /// The largest gap read through, whatever the measurements: runs stay about as large as ``FetchQueue`` sizes
    /// them, and a gap is not cheaper than a request when connections wait for work.
    static let maximumBytes: Int64 = 4 << 20
    /// The gaps one plan reads through in all, as a share of the bytes it fetches: past it, chunks across a gap
    /// cost a request each. Why: against a far server every gap up to a round trip's worth is cheaper than a
    /// request, but scattered chunks would then bring more gap than chunk; capped, a server without multi-range
    /// costs at most this much more than one that answers several ranges (whose requests read hardly any gap).
    static let planShare = 0.15
    /// How much each new measurement counts.
    static let weight = 0.25
    /// Bodies shorter than this say little about the rate (they end within their first round trips).
    static let measuredBytes: Int64 = 256 << 10

    /// A run's reply: `roundTrip` seconds from the request to its first byte, then `bytes` of body in `seconds`.
    mutating func observe(roundTrip: Double, bytes: Int64, seconds: Double) {
        guard roundTrip > 0 else { return }
        self.roundTrip = self.roundTrip.map { $0 + (roundTrip - $0) * Self.weight } ?? roundTrip
        guard bytes >= Self.measuredBytes, seconds > 0 else { return }
        let rate = Double(bytes) / seconds
        bytesPerSecond = bytesPerSecond.map { $0 + (rate - $0) * Self.weight } ?? rate
    }

    /// The largest gap worth reading through: what a connection receives in one round trip, at least `minimum`
    /// (the setting, used until both are measured), at most ``maximumBytes``.
    func gapBytes(minimum: Int64) -> Int64 {
        guard let roundTrip, let bytesPerSecond else { return minimum }
        let worth = roundTrip * bytesPerSecond
        return worth >= Double(Self.maximumBytes) ? max(minimum, Self.maximumBytes) : max(minimum, Int64(worth))
    }
}
