internal import Foundation

/// Origins that a download dropped for refusing (429 or 503 three times in a row), remembered by the engine for
/// ``TransferSettings/refusingMirrorRestSeconds`` — or for the last refusal's `Retry-After` when that is longer (at
/// most ``longestRetryAfter``) — so the next downloads of the same process (the daemon's) leave them alone for a
/// while instead of asking again and being refused three more times each.
///
/// A remembered origin is skipped by a new download while another of its mirrors is not remembered; when every
/// mirror is, they are all used, at one connection each, none before the `Retry-After` it gave (at most 60 s, as
/// within a download). Once its time is up the origin is tried like any other: a mirror that stopped refusing gets
/// its share again. An origin is `scheme://host:port` (the scheme's default port when the URL names none): another
/// host, or another port of the same host, is never affected.
///
/// - Important: Owned by the engine's transfer thread (its loop and the schedulers it runs).
final class RefusingMirrors {
    /// What is remembered of one origin, in monotonic seconds.
    struct Rest: Equatable {
        /// Until when new downloads leave it alone.
        var until: Double
        /// Not before this time may it be asked again (its last `Retry-After`).
        var retryAt: Double
    }

    /// The longest `Retry-After` honoured, in seconds: an hour, so a wrong or hostile header cannot bar an origin
    /// for the life of the daemon.
    static let longestRetryAfter: Double = 3600

    /// How long an origin is left alone at least, in seconds.
    let restSeconds: Double
    /// Origin → what is remembered of it.
    private var rests: [String: Rest] = [:]

    /// A memory that keeps each origin for `restSeconds` (or its longer `Retry-After`).
    init(restSeconds: Double) { self.restSeconds = restSeconds }

    /// The origin of `url` was dropped for refusing at `now`, its last answer asking for `retryAfter` seconds: it
    /// rests until `now + max(restSeconds, retryAfter)`.
    func remember(_ url: String, retryAfter: Double? = nil, now: Double) {
        guard restSeconds > 0 else { return }
        let asked = min(Self.longestRetryAfter, max(0, retryAfter ?? 0))
        rests[Self.origin(of: url)] = Rest(until: now + max(restSeconds, asked), retryAt: now + asked)
    }

    /// What is remembered of the origin of `url` at `now`, `nil` when it does not rest (forgets the origins whose
    /// time is up).
    func rest(of url: String, now: Double) -> Rest? {
        rests = rests.filter { $0.value.until > now }
        return rests[Self.origin(of: url)]
    }

    /// Whether the origin of `url` still rests at `now`.
    func isResting(_ url: String, now: Double) -> Bool { rest(of: url, now: now) != nil }

    /// `scheme://host:port` of `url`, lowercased, with the scheme's default port when it names none (so
    /// `https://a` and `https://a:443` are one origin).
    static func origin(of url: String) -> String {
        let origin = RangeSupport.origin(of: url)
        guard let separator = origin.range(of: "://") else { return origin }
        let scheme = origin[..<separator.lowerBound]
        let authority = origin[separator.upperBound...]
        let host = authority.split(separator: "@").last.map(String.init) ?? String(authority)
        let hasPort = host.hasSuffix("]") ? false : host.contains(":")
        guard !hasPort, let port = ["http": 80, "https": 443][String(scheme)] else { return "\(scheme)://\(host)" }
        return "\(scheme)://\(host):\(port)"
    }
}
