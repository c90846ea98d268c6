internal import Foundation

/// What each server (by origin: scheme, host, port) showed about range requests, remembered for the engine's life
/// so that every download after the first asks a server the way it answers: that it answers a range correctly (its
/// downloads then open every connection at once, without first waiting for one reply), and whether it answers
/// several ranges in one request.
///
/// A server proves support by answering a request for several ranges with a well-formed `multipart/byteranges`
/// reply; it shows it has none by answering one with a whole archive (200, as nginx does past `max_ranges`), a
/// single range, or a malformed multipart. Unknown servers are probed by one multi-range request at a time.
///
/// - Important: Owned by the engine's transfer thread (its loop and the schedulers it runs).
final class RangeSupport {
    private var answers: [String: Bool] = [:]
    private var answersRanges: Set<String> = []

    /// Whether the server of `url` answered a range request correctly before.
    func answersRange(_ url: String) -> Bool { answersRanges.contains(Self.origin(of: url)) }

    /// The server of `url` answered a range request correctly.
    func recordAnswersRange(_ url: String) { answersRanges.insert(Self.origin(of: url)) }

    /// `true`: the server answers several ranges correctly; `false`: it does not; `nil`: not known yet.
    func supportsMultipleRanges(_ url: String) -> Bool? { answers[Self.origin(of: url)] }

    /// Records what the server of `url` showed.
    func record(_ url: String, supportsMultipleRanges: Bool) { answers[Self.origin(of: url)] = supportsMultipleRanges }

    /// `scheme://host[:port]` of `url` (the whole URL when it has no path).
    static func origin(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        return String(url[..<(rest.firstIndex(of: "/") ?? url.endIndex)]).lowercased()
    }
}
