internal import CurlTransport
internal import CCurl
internal import Foundation
import Glibc

extension EasyHandle {
    /// Applies what every request shares, archive, manifest or catalog: the schemes it and its redirects may use
    /// (``OriginRule``), the HTTP version, redirects, the connect timeout, TLS
    /// checks and trust (CA file, client certificate and key), the proxy, the User-Agent, and the `own` headers
    /// followed by the service's ``TransferSettings/headers``. Call after ``setURL(_:)`` (errors name the URL).
    func configureTransport(_ settings: TransferSettings, headers own: [String]) throws(CurlError) {
        try set(CURLOPT_NOSIGNAL, 1)
        // The URL rule (``OriginRule``), on every handle: the URL's own scheme only (http(s), or file for a URL a
        // local catalog named), and redirects to http(s) only.
        try set(CURLOPT_PROTOCOLS_STR, OriginRule.curlProtocols(for: url))
        if let problem = Self.localFileProblem(url) {
            throw CurlError(code: .fileCouldNotReadFile, message: problem, url: url)
        }
        try set(CURLOPT_REDIR_PROTOCOLS_STR, OriginRule.redirectProtocols)
        try set(CURLOPT_FOLLOWLOCATION, 1)
        try set(CURLOPT_MAXREDIRS, settings.maxRedirects)
        try set(CURLOPT_CONNECTTIMEOUT, settings.connectTimeout)
        switch settings.httpVersion {
        case .http1_1: try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        case .http2:
            let tls = url.lowercased().hasPrefix("https:")
            try set(CURLOPT_HTTP_VERSION, tls ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = settings.caFile { try set(CURLOPT_CAINFO, caFile) }
        if let certificate = settings.clientCertificate { try set(CURLOPT_SSLCERT, certificate) }
        if let key = settings.clientKey { try set(CURLOPT_SSLKEY, key) }
        if let proxy = settings.proxy { try setProxy(proxy, shown: settings.displayedProxy) }
        if !settings.userAgent.isEmpty { try set(CURLOPT_USERAGENT, settings.userAgent) }
        try setHeaders(own + settings.checkedHeaders(url: url))
    }
}

extension EasyHandle {
    /// Why the `file://` URL `url` must not be read, or `nil` (also for any other URL): only a regular file is, since
    /// libcurl would block in `open()` on a FIFO — deaf to SIGTERM and SIGINT — and read a device (`/dev/zero`) or
    /// fail on a folder with a message that names neither. Checked with `stat` (following links, as libcurl opens).
    static func localFileProblem(_ url: String) -> String? {
        guard url.lowercased().hasPrefix("file:"), let path = URL(string: url)?.path else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }  // missing: libcurl's own error (37) says so
        let kind = info.st_mode & S_IFMT
        guard kind != S_IFREG else { return nil }
        let what = kind == S_IFIFO ? "a FIFO" : kind == S_IFDIR ? "a folder" : kind == S_IFCHR || kind == S_IFBLK ? "a device" : "not a regular file"
        return "\(path) is \(what); a local catalog's archive or manifest must be a regular file — check the catalog folder"
    }
}

extension TransferSettings {
    /// Header names the module sets itself: archive bytes must arrive unencoded and resume from the bytes on disk.
    static let reservedHeaderNames: Set<String> = ["accept-encoding", "range", "if-range"]

    /// ``headers`` as libcurl takes them, or a `CURLE_BAD_FUNCTION_ARGUMENT` error saying what is wrong with them
    /// (``headerProblem()``), so a misconfigured request fails with that reason instead of being sent.
    func checkedHeaders(url: String) throws(CurlError) -> [String] {
        if let problem = headerProblem() { throw CurlError(code: Self.badArgument, message: problem, url: url) }
        return headers
    }

    /// What is wrong with ``headers``: the first line that is not one `Name: value` header or that names a
    /// header the module sets itself; `nil` when they can be sent. The command line checks this before it starts.
    package func headerProblem() -> String? {
        for line in headers {
            let name = (line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: .whitespaces)
            if !line.contains(":") || name.isEmpty || name.contains(" ") || line.contains(where: \.isNewline) {
                return "the request header \"\(line)\" is not one `Name: value` line"
            }
            if Self.reservedHeaderNames.contains(name.lowercased()) {
                return "the request header \(name) is set by iapcontent itself; leave it out"
            }
        }
        return nil
    }

    /// ``proxy`` as messages show it: without a user name or password; `nil` when none is set.
    var displayedProxy: String? {
        guard let proxy, !proxy.isEmpty else { return nil }
        guard var components = URLComponents(string: proxy), components.user != nil || components.password != nil else {
            return proxy
        }
        components.user = nil
        components.password = nil
        return components.string ?? "(a proxy)"
    }

    /// `CURLE_BAD_FUNCTION_ARGUMENT`: what a request the module refuses to send fails with (not retried).
    private static let badArgument = CurlError.Code(rawValue: 43)
}
