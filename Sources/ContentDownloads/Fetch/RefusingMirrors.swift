/// Origins that a download dropped for refusing (429 or 503 three times in a row), remembered by the engine for
/// ``TransferSettings/refusingMirrorRestSeconds`` so the next downloads of the same process (the daemon's) leave
/// them alone for a while instead of asking again and being refused three more times each.
///
/// A remembered origin is skipped by a new download while another of its mirrors is not remembered; when every
/// mirror is, they are all used, at one connection each. Once its time is up the origin is tried like any other:
/// a mirror that stopped refusing gets its share again.
///
/// - Important: Owned by the engine's transfer thread (its loop and the schedulers it runs).
final class RefusingMirrors {
    /// How long an origin is left alone, in seconds.
    let restSeconds: Double
    /// Origin (`scheme://host[:port]`) → the monotonic time until which it rests.
    private var until: [String: Double] = [:]

    /// A memory that keeps each origin for `restSeconds`.
    init(restSeconds: Double) { self.restSeconds = restSeconds }

    /// The origin of `url` was dropped for refusing at `now`: it rests until `now + restSeconds`.
    func remember(_ url: String, now: Double) {
        guard restSeconds > 0 else { return }
        until[RangeSupport.origin(of: url)] = now + restSeconds
    }

    /// Whether the origin of `url` still rests at `now` (forgets the origins whose time is up).
    func isResting(_ url: String, now: Double) -> Bool {
        until = until.filter { $0.value > now }
        return until[RangeSupport.origin(of: url)] != nil
    }
}
