internal import CCurl

/// Process-wide libcurl initialisation, done exactly once before any handle exists.
///
/// libcurl 7.88 is built thread-safe on Debian, but `curl_global_init` must still run before the
/// first `curl_easy_init`; a `static let` gives a race-free once.
/// The corresponding C function is `curl_global_init`.
package enum CurlGlobal {
    /// Evaluated once; touching it initialises libcurl.
    package static let initialised: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    /// Initialises libcurl if needed.
    package static func ensure() { _ = initialised }
}
