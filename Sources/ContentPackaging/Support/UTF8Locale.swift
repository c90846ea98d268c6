import Glibc

/// Runs libarchive calls with a UTF-8 `LC_CTYPE` on the current thread only (`uselocale`).
///
/// libarchive's pax writer converts names through the locale even with `hdrcharset=UTF-8`; in
/// the default "C" locale a non-ASCII name cannot be converted and libarchive 3.6.2 then passes
/// a NULL name to `strlen` and crashes. A thread-local locale fixes that without touching the
/// process-wide locale other code depends on.
enum UTF8Locale {
    /// `C.UTF-8` (built into glibc ≥ 2.35), or `nil` when unavailable.
    nonisolated(unsafe) static let locale: locale_t? = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)

    /// Calls `body` with the thread's locale set to ``locale``, restoring the previous one after.
    static func run<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard let locale else { return try body() }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return try body()
    }
}
