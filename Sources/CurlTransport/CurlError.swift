package import CCurl

/// A libcurl failure: the `CURLcode`, libcurl's own message (from `CURLOPT_ERRORBUFFER`) and the URL.
///
/// Related libcurl documentation: https://curl.se/libcurl/c/libcurl-errors.html
package struct CurlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A libcurl result code (`CURLcode`), as a typed value with the constants this package reacts to.
    package struct Code: RawRepresentable, Sendable, Hashable {
        /// The raw `CURLcode` value.
        package let rawValue: Int32
        /// Wraps a raw `CURLcode` value.
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// `CURLE_COULDNT_RESOLVE_HOST`.
        package static let couldNotResolveHost = Code(rawValue: 6)
        /// `CURLE_COULDNT_CONNECT` (connection refused).
        package static let couldNotConnect = Code(rawValue: 7)
        /// `CURLE_PARTIAL_FILE` (the body ended before `Content-Length`).
        package static let partialFile = Code(rawValue: 18)
        /// `CURLE_WRITE_ERROR` (our write callback refused the data).
        package static let writeError = Code(rawValue: 23)
        /// `CURLE_OPERATION_TIMEDOUT` (timeouts and low-speed stalls).
        package static let operationTimedOut = Code(rawValue: 28)
        /// `CURLE_SSL_CONNECT_ERROR`.
        package static let sslConnectError = Code(rawValue: 35)
        /// `CURLE_ABORTED_BY_CALLBACK`.
        package static let abortedByCallback = Code(rawValue: 42)
        /// `CURLE_TOO_MANY_REDIRECTS`.
        package static let tooManyRedirects = Code(rawValue: 47)
        /// `CURLE_GOT_NOTHING` (the server closed without replying).
        package static let gotNothing = Code(rawValue: 52)
        /// `CURLE_SEND_ERROR`.
        package static let sendError = Code(rawValue: 55)
        /// `CURLE_RECV_ERROR` (connection reset while reading).
        package static let receiveError = Code(rawValue: 56)
        /// `CURLE_PEER_FAILED_VERIFICATION` (TLS certificate rejected).
        package static let peerFailedVerification = Code(rawValue: 60)
        /// `CURLE_SSL_CACERT_BADFILE` (the CA file could not be read or holds no certificate).
        package static let unreadableCAFile = Code(rawValue: 77)
        /// `CURLE_FILE_COULDNT_READ_FILE` (a `file://` URL that does not exist).
        package static let fileCouldNotReadFile = Code(rawValue: 37)
        /// `CURLE_HTTP2` / `CURLE_HTTP2_STREAM`.
        package static let http2 = Code(rawValue: 16)
        /// `CURLE_HTTP2_STREAM`.
        package static let http2Stream = Code(rawValue: 92)
    }

    /// The libcurl result code.
    package let code: Code
    /// libcurl's explanation (error buffer, else `curl_easy_strerror`).
    package let message: String
    /// The URL being fetched.
    package let url: String

    /// An error with `code`, its `message` and the `url` it happened on.
    package init(code: Code, message: String, url: String) {
        self.code = code
        self.message = message
        self.url = url
    }

    /// Whether retrying later may succeed (network trouble rather than a wrong request).
    package var isTransient: Bool {
        switch code {
        case .couldNotConnect, .partialFile, .operationTimedOut, .gotNothing, .sendError, .receiveError,
             .couldNotResolveHost, .http2, .http2Stream, .sslConnectError:
            true
        default:
            false
        }
    }

    /// Words for people: what failed, where, and libcurl's reason.
    package var description: String {
        "network error \(code.rawValue) fetching \(url): \(message)"
    }

    /// What to pass when the failure is one of trust rather than of the network, else `nil`: a server certificate no
    /// trusted authority signed (a private CA) or a CA file that cannot be used. Why: libcurl's words ("unable to get
    /// local issuer certificate") do not say that the fix is an option, and retrying or checking the network never helps.
    package var trustAdvice: String? {
        switch code {
        case .peerFailedVerification:
            "the server's certificate is not signed by an authority this client trusts; pass the PEM file of the authority that signed it with --ca-file PATH (TransferSettings.caFile)"
        case .unreadableCAFile:
            "the CA file cannot be used; pass a readable PEM file of certificate authorities with --ca-file PATH (TransferSettings.caFile)"
        default:
            nil
        }
    }
}

extension CurlError {
    /// The error of a finished easy handle: libcurl's error buffer when it says anything, else its
    /// generic text for `code`.
    package init(_ code: CURLcode, errorBuffer: String?, url: String) {
        let fallback = String(cString: curl_easy_strerror(code))
        let text = errorBuffer.flatMap { $0.isEmpty ? nil : $0 } ?? fallback
        self.init(code: Code(rawValue: Int32(code.rawValue)), message: text, url: url)
    }
}
