package import CCurl

/// Owns one libcurl easy handle (`CURL *`) and its error buffer; cleans both up on deinit.
///
/// - Important: Not thread-safe. Used only by the thread that created it (the transfer thread
///   for downloads, the caller's thread for one-shot fetches).
///
/// The corresponding C functions are `curl_easy_init` and `curl_easy_cleanup`.
package final class EasyHandle {
    /// The raw handle; never escapes this package.
    package let raw: UnsafeMutableRawPointer
    /// libcurl writes its human-readable error here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Header list passed with `CURLOPT_HTTPHEADER`; must outlive the transfer.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The URL, for error messages.
    package private(set) var url: String = ""
    /// The proxy requests go through, as messages show it (no credentials); `nil` = direct.
    package private(set) var proxy: String?

    /// Creates a handle with the error buffer attached.
    package init() throws(CurlError) {
        CurlGlobal.ensure()
        guard let handle = curl_easy_init() else {
            throw CurlError(code: .init(rawValue: 2), message: "curl_easy_init failed (out of memory?)", url: "")
        }
        raw = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        _ = CCurl_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    deinit {
        curl_easy_cleanup(raw)
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// Sets the URL.
    package func setURL(_ url: String) throws(CurlError) {
        self.url = url
        try set(CURLOPT_URL, url)
    }

    /// Sends requests through `proxy` (`CURLOPT_PROXY`); errors then name it as `shown`.
    package func setProxy(_ proxy: String, shown: String?) throws(CurlError) {
        try set(CURLOPT_PROXY, proxy)
        self.proxy = shown
    }

    /// `curl_easy_setopt` with an integer.
    package func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
        try check(CCurl_easy_setopt_long(raw, option, value), option: option)
    }

    /// `curl_easy_setopt` with a `curl_off_t` (`*_LARGE` options).
    package func set(large option: CURLoption, _ value: Int64) throws(CurlError) {
        try check(CCurl_easy_setopt_off(raw, option, curl_off_t(value)), option: option)
    }

    /// `curl_easy_setopt` with a string (libcurl copies it).
    package func set(_ option: CURLoption, _ value: String) throws(CurlError) {
        try check(value.withCString { CCurl_easy_setopt_string(raw, option, $0) }, option: option)
    }

    /// `curl_easy_setopt` with a pointer.
    package func set(pointer option: CURLoption, _ value: UnsafeMutableRawPointer?) throws(CurlError) {
        try check(CCurl_easy_setopt_pointer(raw, option, value), option: option)
    }

    /// Replaces the extra request headers (`CURLOPT_HTTPHEADER`).
    package func setHeaders(_ headers: [String]) throws(CurlError) {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for header in headers { list = curl_slist_append(list, header) }
        try check(CCurl_easy_setopt_pointer(raw, CURLOPT_HTTPHEADER, list))
        if let headerList { curl_slist_free_all(headerList) }
        headerList = list
    }

    /// `CURLINFO_RESPONSE_CODE`: the last HTTP status (0 for `file://`).
    package var responseCode: Int {
        var code: Int = 0
        _ = CCurl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// Turns a result code into a ``CurlError`` carrying the error buffer, the URL and the proxy, if any.
    package func error(for code: CURLcode) -> CurlError {
        let error = CurlError(code, errorBuffer: String(cString: errorBuffer), url: url)
        guard let proxy else { return error }
        return CurlError(code: error.code, message: "\(error.message) (through the proxy \(proxy))", url: url)
    }

    /// Runs the transfer synchronously (for small one-shot fetches such as catalogs).
    /// The corresponding C function is `curl_easy_perform`.
    package func perform() throws(CurlError) {
        try check(curl_easy_perform(raw))
    }

    private func check(_ code: CURLcode, option: CURLoption? = nil) throws(CurlError) {
        guard code == CURLE_OK else {
            let failure = error(for: code)
            guard let option else { throw failure }
            // Which option libcurl refused (its number, as in curl.h), so a report points at the setting.
            throw CurlError(code: failure.code, message: "\(failure.message) (curl_easy_setopt option \(option.rawValue))", url: url)
        }
    }
}
