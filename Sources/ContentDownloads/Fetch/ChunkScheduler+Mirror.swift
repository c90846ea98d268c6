/// One mirror as a ``ChunkScheduler`` sees it (``ChunkScheduler/Mirror``): whether it is still used, what it
/// showed, and its own back-off.
///
/// Concurrency and back-off belong to each origin: a mirror that answers 429 or 503 gets half the connections
/// it held (at least one) and none before its `Retry-After`; no other mirror loses a connection for it, and the
/// download's connection target (``ConnectionTuner``) is unchanged, so the mirrors that are up take its share.
struct ChunkMirror {
    var url: String
    var dropped = false
    /// Dropped before it was asked: the engine remembers it refusing (``RefusingMirrors``); taken back, at one
    /// connection, when every other mirror is dropped.
    var resting = false
    /// Network failures and refusals (429/503) since its last run that arrived whole; three drop it while
    /// another mirror is up.
    var failures = 0
    /// It answered a range request with the whole archive: one connection reads it through.
    var ignoresRange = false
    /// It answered a range request correctly: until then it gets one connection (a server that ignores
    /// `Range` or lacks the file costs one request, not one per connection).
    var confirmed = false
    /// Not before this time (a 429/503's `Retry-After`).
    var retryAt: Double = 0
    /// The most connections it may hold (`nil`: no limit of its own): halved by each 429/503 it answers.
    var connectionCap: Int?
    /// Why it failed last.
    var lastFailure: TransferFailure?
    /// Frames it served that failed their signed hash (a second drops it while another mirror is up).
    var badFrames = 0
    /// Frame bytes it delivered.
    var delivered: Int64 = 0
    /// Its round trip and a connection's rate, measured: how much gap a request for one range reads through.
    var gaps = GapBudget()

    /// A local origin (`file:`): read one frame per request, its memory admitted first (libcurl cannot pause it).
    var isLocal: Bool { url.lowercased().hasPrefix("file:") }

    /// Whether it may hold `count` connections at `now`: it is up, its `Retry-After` has passed, and `count`
    /// is within its own cap.
    func mayHold(_ count: Int, now: Double) -> Bool {
        !dropped && retryAt <= now && count <= (connectionCap ?? .max)
    }

    /// It answered 429/503 while holding `count` connections (the refused one included): half of them from now
    /// on (at least one), none before `retryAfter` seconds from `now` (1 s when it gave none, at most 60 s).
    mutating func slowDown(retryAfter: Double?, holding count: Int, now: Double) {
        connectionCap = max(1, min(connectionCap ?? .max, count) / 2)
        retryAt = max(retryAt, now + min(60, max(0, retryAfter ?? 1)))
        failures += 1
    }
}
