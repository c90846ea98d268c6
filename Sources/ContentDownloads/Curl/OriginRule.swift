internal import CurlTransport
internal import Foundation

/// The one URL rule: which URLs a catalog may send a client to.
///
/// A catalog fetched over http(s) names archives, manifests and mirrors over http(s) only; `file://` is allowed only
/// when the catalog itself was read from this machine (a folder or a `file://` URL), since only then did the person
/// running the client choose the disk it reads. Redirects may lead to http(s) only, whatever the catalog
/// (libcurl's ``EasyHandle/configureTransport(_:headers:)`` sets both allow-lists on every handle). So a signed but
/// hostile catalog — or one whose key leaked — cannot make a client read its own files (`file:///etc/…`) or talk to
/// local services through other protocols (`gopher://127.0.0.1:6379/…`, `dict://`, `ftp://`).
enum OriginRule {
    /// Schemes a request may use, as libcurl's `CURLOPT_PROTOCOLS_STR` takes them, for `url` (which already passed
    /// ``permits(_:catalog:)``): `file` for a `file://` URL, else `http,https`.
    static func curlProtocols(for url: String) -> String {
        url.lowercased().hasPrefix("file:") ? "file" : "http,https"
    }

    /// Schemes a redirect may lead to, for every request.
    static let redirectProtocols = "http,https"

    /// Whether `catalog` (where the catalog was read from) may send a client to `url`.
    static func permits(_ url: URL, catalog: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "http", "https": return url.host != nil
        case "file": return catalog.isFileURL
        default: return false
        }
    }

    /// Why `url` is refused for a catalog read from `catalog`, in words, or `nil` when it is permitted.
    static func refusal(_ url: String, catalog: URL) -> String? {
        guard let parsed = URL(string: url) else { return "\(url) is not a URL" }
        guard !permits(parsed, catalog: catalog) else { return nil }
        let allowed = catalog.isFileURL ? "http, https or file" : "http or https"
        return "\(url) is not allowed: a catalog read from \(catalog.absoluteString) may name \(allowed) URLs only"
    }
}
