internal import CurlTransport
internal import Foundation

/// Where one download fetches from: the candidate URLs (mirrors) in order, which one is in use, and
/// whether the authorizer was already re-asked after a refusal. Memory only; the URL in use is in the journal.
struct ArchiveRoute: Sendable {
    /// Candidate archive URLs, best first.
    var candidates: [String]
    /// The candidate in use.
    var index = 0
    /// The catalog URL the preferred mirror is remembered under (`nil`: not remembered).
    var catalogKey: String?
    /// The authorizer was re-asked after a 403/410 since the server last accepted a request.
    var reauthorized = false
    /// Bumped for every authorization, so a late answer for an older request is dropped.
    var authorization = 0
    /// A candidate left behind because its server's certificate was not trusted (or the CA file was unusable): the
    /// download's final error repeats it, so a failure on a later candidate still says to pass `--ca-file`.
    var untrusted: CurlError?

    /// `scheme://host:port` of a URL, the key a preferred mirror is remembered by. The host stays as written
    /// (`encodedHost`: ASCII, IDNA names in their `xn--` form); decoding it would load ICU for a comparison key.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.encodedHost
        else { return nil }
        return "\(scheme.lowercased())://\(host.lowercased())\(components.port.map { ":\($0)" } ?? "")"
    }
}

/// What the manager does after a failure, given the mirrors and the authorizer.
enum Reroute {
    /// Nothing special: the usual retry policy applies.
    case unchanged
    /// Send a new request at once (next mirror, or a freshly authorized URL).
    case retryNow
    /// Give up with this error.
    case fail(DownloadError)
}
