internal import Foundation

/// Smoothed download rate and `timeRemaining`, StoreKit-style (`-1` when unknown).
///
/// An exponential moving average with α = 1 − exp(−dt/τ), τ = 5 s, seeded from the session
/// average. Bytes already on disk when the session started are excluded. The estimate is hidden
/// for the first ``warmup`` seconds of the first session and after ``stallAfter`` seconds without new bytes;
/// a later session (a resume, a retry) shows the rate the earlier one reached during its warm-up, then seeds
/// itself again from its own average.
package struct RateEstimator: Sendable, Equatable {
    /// Smoothing time constant in seconds.
    package var tau: Double
    /// Seconds after the session start during which the estimate is unknown.
    package var warmup: Double
    /// Seconds without new bytes after which the estimate is unknown (stalled).
    package var stallAfter: Double
    /// The smoothed rate in bytes per second, once there is one.
    package private(set) var rate: Double?
    private var sessionStart: Double?
    private var sessionStartBytes: Int64 = 0
    private var lastTime: Double = 0
    private var lastBytes: Int64 = 0
    private var lastDataTime: Double = 0
    /// The rate an earlier session reached, shown during this session's warm-up.
    private var carried: Double?

    /// Creates an estimator.
    package init(tau: Double = 5, warmup: Double = 2.5, stallAfter: Double = 5) {
        self.tau = tau
        self.warmup = warmup
        self.stallAfter = stallAfter
    }

    /// Starts a session (a new request) with `bytes` already on disk.
    package mutating func start(at time: Double, bytes: Int64) {
        sessionStart = time
        sessionStartBytes = bytes
        lastTime = time
        lastBytes = bytes
        lastDataTime = time
        if let rate { carried = rate }
        rate = nil
    }

    /// Ends the session (pause, failure): the estimate becomes unknown until the next start.
    package mutating func stop() { sessionStart = nil }

    /// Records the bytes on disk at `time`.
    package mutating func record(bytes: Int64, at time: Double) {
        guard let sessionStart else { return }
        let dt = time - lastTime
        guard dt > 0 else { return }
        if bytes < lastBytes {  // restarted from zero
            start(at: time, bytes: bytes)
            return
        }
        let delta = Double(bytes - lastBytes)
        if delta > 0 { lastDataTime = time }
        let sample = delta / dt
        if let current = rate {
            let alpha = 1 - exp(-dt / tau)
            rate = current + alpha * (sample - current)
        } else {
            // Seed only once the warm-up has passed, from the session average: the first samples are
            // dominated by socket-buffer bursts (loopback: 100+ MB/s under a 4 MB/s cap), and a seed
            // that high would take several τ to decay, showing "0 s left" for most of a download.
            let elapsed = time - sessionStart
            guard elapsed >= warmup else { return }
            rate = Double(bytes - sessionStartBytes) / elapsed
        }
        lastTime = time
        lastBytes = bytes
    }

    /// Seconds until `remaining` more bytes arrive at the smoothed rate, or -1 if unknown.
    package func timeRemaining(remaining: Int64, at time: Double) -> Double {
        guard let sessionStart, time - lastDataTime < stallAfter,
              let rate = time - sessionStart >= warmup ? rate ?? carried : carried, rate > 0
        else { return downloadTimeRemainingUnknown }
        return max(0, Double(remaining) / rate)
    }
}

