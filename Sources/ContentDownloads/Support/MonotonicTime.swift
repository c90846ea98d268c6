internal import Glibc

/// Seconds on the monotonic clock: what rates, deadlines and cadences in the download half are measured with
/// (never the wall clock, which jumps).
enum MonotonicTime {
    /// Now, in seconds since an arbitrary start.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
