package import CCurl

/// Owns the libcurl multi handle (`CURLM *`) that drives every transfer of one engine.
///
/// - Important: Not thread-safe. Every method except ``wakeup()`` must be called on the transfer
///   thread (`iap-curl`). ``wakeup()`` is documented by libcurl as callable from any thread,
///   which is why the type is `@unchecked Sendable`.
///
/// Related libcurl documentation: https://curl.se/libcurl/c/libcurl-multi.html
package final class MultiHandle: @unchecked Sendable {
    /// The raw handle.
    package let raw: UnsafeMutableRawPointer

    /// Creates a multi handle with HTTP/2 multiplexing enabled and at most `maxConnectionsPerHost` connections to
    /// one host (more requests wait for one of them).
    /// The corresponding C function is `curl_multi_init`.
    package init(maxConnectionsPerHost: Int = 6) throws(CurlError) {
        CurlGlobal.ensure()
        guard let handle = curl_multi_init() else {
            throw CurlError(code: .init(rawValue: 2), message: "curl_multi_init failed", url: "")
        }
        raw = handle
        _ = CCurl_multi_setopt_long(raw, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = CCurl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
    }

    deinit { curl_multi_cleanup(raw) }

    /// Adds an easy handle. The corresponding C function is `curl_multi_add_handle`.
    package func add(_ easy: EasyHandle) -> Bool { curl_multi_add_handle(raw, easy.raw) == CURLM_OK }

    /// Removes an easy handle. The corresponding C function is `curl_multi_remove_handle`.
    package func remove(_ easy: EasyHandle) { _ = curl_multi_remove_handle(raw, easy.raw) }

    /// Removes the handle `handle` (still alive: its owner frees it only after this).
    package func remove(raw handle: UnsafeMutableRawPointer) { _ = curl_multi_remove_handle(raw, handle) }

    /// Waits for socket activity, a wakeup, or the timeout. The corresponding C function is `curl_multi_poll`.
    package func poll(timeoutMilliseconds: Int32) {
        _ = curl_multi_poll(raw, nil, 0, timeoutMilliseconds, nil)
    }

    /// Drives every transfer as far as possible without blocking; returns the number still running.
    /// The corresponding C function is `curl_multi_perform`.
    package func perform() -> Int32 {
        var running: Int32 = 0
        _ = curl_multi_perform(raw, &running)
        return running
    }

    /// Finished transfers since the last call: (easy handle pointer, result).
    /// The corresponding C function is `curl_multi_info_read`.
    package func completed() -> [(handle: UnsafeMutableRawPointer, result: CURLcode)] {
        var done: [(UnsafeMutableRawPointer, CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(raw, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                done.append((easy, message.pointee.data.result))
            }
        }
        return done
    }

    /// Wakes a blocked ``poll(timeoutMilliseconds:)``; safe from any thread.
    /// The corresponding C function is `curl_multi_wakeup`.
    package func wakeup() { _ = curl_multi_wakeup(raw) }
}
