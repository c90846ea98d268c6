internal import Foundation

/// What each server (by origin: scheme, host, port) showed about multi-range requests, remembered for the engine's
/// life so that every download after the first asks a server the way it answers.
///
/// A server proves support by answering a request for several ranges with a well-formed `multipart/byteranges`
/// reply; it shows it has none by answering one with a whole archive (200, as nginx does past `max_ranges`), a
/// single range, or a malformed multipart. Unknown servers are probed by one multi-range request at a time.
///
/// - Important: Owned by the engine's transfer thread (its loop and the schedulers it runs).
final class RangeSupport {
    private var answers: [String: Bool] = [:]

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
