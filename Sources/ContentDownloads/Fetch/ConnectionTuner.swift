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
    /// The most connections it may reach.
    let maximum: Int
    /// When the current measurement window began, the bytes then, and the rate and target measured before the
    /// last step.
    private var windowStart: Double?
    private var windowBytes: Int64 = 0
    private var previous: (rate: Double, target: Int)?
    private(set) var growing = true
    /// The throughput of the last window measured (bytes a second; 0 before the first), for the log.
    private(set) var lastRate: Double = 0

    /// The window over which throughput is measured before deciding.
    static let window = 1.0

    init(initial: Int, maximum: Int) {
        self.maximum = max(1, maximum)
        target = min(max(1, initial), self.maximum)
    }

    /// Feeds the total bytes received so far at time `now` (seconds), counted as they arrive (whole frames are too
    /// coarse for a one-second window); may change ``target``. `busy` says
    /// whether the current connections all had work (growing is pointless otherwise).
    mutating func observe(bytes: Int64, now: Double, busy: Bool) {
        guard let start = windowStart else {
            windowStart = now
            windowBytes = bytes
            return
        }
        guard now - start >= Self.window else { return }
        let rate = Double(bytes - windowBytes) / (now - start)
        lastRate = rate
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

    /// The rate the connections will reach while the count still grows with work waiting (`busy`): the mean of
    /// `connectionRates` (of the connections that delivered long enough to have one) times ``maximum``, at most
    /// `cap` bytes a second (0: none); 0 once the count settled, without work waiting, or without a rate yet.
    ///
    /// Why: an attempt's first seconds (a resume, a restart) run on a few connections while the count doubles, so
    /// the bytes so far measure a fraction of the rate the attempt will hold. Growing assumes each connection is
    /// capped, not the link (each doubling that raised the throughput by a tenth says so), so the count is on its
    /// way to ``maximum``; a link that saturates sooner stops the growth within a second or two, and this says 0
    /// from then on.
    func outlook(connectionRates: [Double], busy: Bool, cap: Int64) -> Double {
        let rates = connectionRates.filter { $0 > 0 }
        guard growing, busy, !rates.isEmpty else { return 0 }
        let expected = rates.reduce(0, +) / Double(rates.count) * Double(maximum)
        return cap > 0 ? min(expected, Double(cap)) : expected
    }
}
