/// How many connections a chunk plan uses: start at ``TransferSettings/connections``, add two while each
/// addition still raised the throughput by a tenth, up to ``TransferSettings/maxConnections``; halve and stop
/// growing when a server answers 429 or 503 (it asks for less).
///
/// Why adaptive: a server or CDN that caps each connection (nginx `limit_rate`, per-connection throttling) is
/// fetched faster by more connections, up to the link's rate; past that more connections only add requests,
/// and a busy origin says so with 429/503. Pure: the scheduler feeds it time and bytes.
struct ConnectionTuner: Sendable, Equatable {
    /// Connections wanted now.
    private(set) var target: Int
    private let maximum: Int
    /// When the current measurement window began, the bytes then, and the rate measured before the last step.
    private var windowStart: Double?
    private var windowBytes: Int64 = 0
    private var previousRate: Double?
    private var growing = true

    /// The window over which throughput is measured before deciding.
    static let window = 2.0

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
        if let previous = previousRate, rate < previous * 1.1 {
            growing = false  // the last step added nothing worth its requests
            return
        }
        previousRate = rate
        if target < maximum { target = min(maximum, target + 2) } else { growing = false }
    }

    /// A server asked for less (429 or 503): halve, and stop growing.
    mutating func backOff() {
        target = max(1, target / 2)
        growing = false
    }
}
