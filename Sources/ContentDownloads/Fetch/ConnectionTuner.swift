/// How many connections a chunk plan uses: start at ``TransferSettings/connections``, double each second while
/// the doubling raised the throughput by a tenth, up to ``TransferSettings/maxConnections``; when a step added
/// less, go back to the count before it and stay. A server's 429 or 503 does not change it: back-off is each
/// mirror's own (``ChunkScheduler/Mirror/slowDown(retryAfter:holding:now:)``), so one origin's "slow down" never
/// costs another its connections.
///
/// Why adaptive: a server or CDN that caps each connection (nginx `limit_rate`, per-connection throttling) is
/// fetched faster by more connections, up to the link's rate; past that more connections only add requests, and
/// on a fast link they cost CPU (chunks arrive out of order, so more of each file is hashed from a second read
/// instead of in one pass with its chunk). Doubling reaches 16 connections in three seconds, as fast as a
/// per-connection cap needs. Pure: the scheduler feeds it time and bytes.
struct ConnectionTuner: Sendable {
    /// Connections wanted now.
    private(set) var target: Int
    private let maximum: Int
    /// When the current measurement window began, the bytes then, and the rate and target measured before the
    /// last step.
    private var windowStart: Double?
    private var windowBytes: Int64 = 0
    private var previous: (rate: Double, target: Int)?
    private var growing = true

    /// The window over which throughput is measured before deciding.
    static let window = 1.0

    init(initial: Int, maximum: Int) {
        self.maximum = max(1, maximum)
        target = min(max(1, initial), self.maximum)
    }

    /// Feeds the total bytes received so far at time `now` (seconds); may change ``target``. `busy` says
    /// whether the current connections all had work (growing is pointless otherwise).
    mutating func observe(bytes: Int64, now: Double, busy: Bool) {
        guard let start = windowStart else {
            windowStart = now
            windowBytes = bytes
            return
        }
        guard now - start >= Self.window else { return }
        let rate = Double(bytes - windowBytes) / (now - start)
        windowStart = now
        windowBytes = bytes
        guard growing, busy else { return }
        if let previous, rate < previous.rate * 1.1 {
            target = previous.target  // the last step added nothing worth its connections
            growing = false
            return
        }
        previous = (rate, target)
        if target < maximum { target = min(maximum, target * 2) } else { growing = false }
    }
}
