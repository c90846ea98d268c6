internal import CCurl

/// A libcurl failure: the `CURLcode`, libcurl's own message (from `CURLOPT_ERRORBUFFER`) and the URL.
///
/// Related libcurl documentation: https://curl.se/libcurl/c/libcurl-errors.html
public struct CurlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A libcurl result code (`CURLcode`), as a typed value with the constants this package reacts to.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The raw `CURLcode` value.
        public let rawValue: Int32
        /// Wraps a raw `CURLcode` value.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `CURLE_COULDNT_RESOLVE_HOST`.
        public static let couldNotResolveHost = Code(rawValue: 6)
        /// `CURLE_COULDNT_CONNECT` (connection refused).
        public static let couldNotConnect = Code(rawValue: 7)
        /// `CURLE_PARTIAL_FILE` (the body ended before `Content-Length`).
        public static let partialFile = Code(rawValue: 18)
        /// `CURLE_WRITE_ERROR` (our write callback refused the data).
        public static let writeError = Code(rawValue: 23)
        /// `CURLE_OPERATION_TIMEDOUT` (timeouts and low-speed stalls).
        public static let operationTimedOut = Code(rawValue: 28)
        /// `CURLE_SSL_CONNECT_ERROR`.
        public static let sslConnectError = Code(rawValue: 35)
        /// `CURLE_ABORTED_BY_CALLBACK`.
        public static let abortedByCallback = Code(rawValue: 42)
        /// `CURLE_TOO_MANY_REDIRECTS`.
        public static let tooManyRedirects = Code(rawValue: 47)
        /// `CURLE_GOT_NOTHING` (the server closed without replying).
        public static let gotNothing = Code(rawValue: 52)
        /// `CURLE_SEND_ERROR`.
        public static let sendError = Code(rawValue: 55)
        /// `CURLE_RECV_ERROR` (connection reset while reading).
        public static let receiveError = Code(rawValue: 56)
        /// `CURLE_PEER_FAILED_VERIFICATION` (TLS certificate rejected).
        public static let peerFailedVerification = Code(rawValue: 60)
        /// `CURLE_FILE_COULDNT_READ_FILE` (a `file://` URL that does not exist).
        public static let fileCouldNotReadFile = Code(rawValue: 37)
        /// `CURLE_HTTP2` / `CURLE_HTTP2_STREAM`.
        public static let http2 = Code(rawValue: 16)
        /// `CURLE_HTTP2_STREAM`.
        public static let http2Stream = Code(rawValue: 92)
    }

    /// The libcurl result code.
    public let code: Code
    /// libcurl's explanation (error buffer, else `curl_easy_strerror`).
    public let message: String
    /// The URL being fetched.
    public let url: String

    /// Creates an error from a code, message and URL.
    public init(code: Code, message: String, url: String) {
        self.code = code
        self.message = message
        self.url = url
    }

    init(_ code: CURLcode, errorBuffer: String?, url: String) {
        let fallback = String(cString: curl_easy_strerror(code))
        let text = errorBuffer.flatMap { $0.isEmpty ? nil : $0 } ?? fallback
        self.init(code: Code(rawValue: Int32(code.rawValue)), message: text, url: url)
    }

    /// Whether retrying later may succeed (network trouble rather than a wrong request).
    public var isTransient: Bool {
        switch code {
        case .couldNotConnect, .partialFile, .operationTimedOut, .gotNothing, .sendError, .receiveError,
             .couldNotResolveHost, .http2, .http2Stream, .sslConnectError:
            true
        default:
            false
        }
    }

    /// Words for people: what failed, where, and libcurl's reason.
    public var description: String {
        "network error \(code.rawValue) fetching \(url): \(message)"
    }
}
