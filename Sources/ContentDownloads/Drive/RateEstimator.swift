/// The download rate of the transfer running now and its `timeRemaining` (`-1` only while nothing is known).
///
/// A sliding window over the bytes this transfer attempt fetched: the rate is the bytes between the newest sample
/// and the newest one at least ``window`` seconds older, over the time between them (every sample while the
/// attempt is younger than that, back to its start). So it follows the connections actually running — a mirror
/// dropped, a connection added, the last chunks on fewer connections — within ``window`` seconds, and an attempt
/// never counts bytes that were on disk when it began (a resume, a restart after a crash): its first sample is the
/// offset its response starts from. The rate is known once the attempt's bytes span ``minimumSpan`` seconds
/// (a few samples: one sample right after the first bytes would measure one packet); once the window has passed
/// the start, a first burst from socket buffers is no longer in it.
///
/// Bytes that stop arriving lower the rate as time passes (the newest sample's time is taken as at most ``slack``
/// seconds old), and after ``stallAfter`` seconds without a byte the estimate is unknown (stalled).
package struct RateEstimator: Sendable, Equatable {
    /// One observation: the attempt's fetched-byte counter at a monotonic time.
    struct Sample: Sendable, Equatable {
        var time: Double
        var bytes: Int64
    }

    /// Seconds of samples the rate is measured over, once the attempt is that old.
    package var window: Double
    /// Seconds without new bytes after which the estimate is unknown (stalled).
    package var stallAfter: Double
    /// How old the newest sample may be before the time since it counts against the rate.
    package var slack: Double
    /// Seconds of samples before the rate is known.
    package var minimumSpan: Double
    /// The samples of the running attempt, oldest first; empty while none runs. The first is the reference.
    private var samples: [Sample] = []
    /// Bound on ``samples`` (transfers report about 10 times a second; a window holds about 30).
    private static let maximumSamples = 256

    /// Creates an estimator.
    package init(window: Double = 3, stallAfter: Double = 5, slack: Double = 0.5, minimumSpan: Double = 0.2) {
        self.window = window
        self.stallAfter = stallAfter
        self.slack = slack
        self.minimumSpan = minimumSpan
    }

    /// The rate in bytes per second over the window, as of the newest sample; `nil` until the attempt's bytes
    /// span ``minimumSpan``.
    package var rate: Double? { rate(at: nil) }

    /// Whether the samples span the whole window (the attempt is at least that old and its bytes moved).
    package var spansWindow: Bool {
        guard let first = samples.first, let newest = samples.last, samples.count >= 2 else { return false }
        return newest.time - first.time >= window
    }

    /// The attempt's fetched bytes as of its newest sample (`nil` while none runs).
    package var fetchedBytes: Int64? { samples.last?.bytes }

    /// Starts an attempt at `time` (its request, then again when its response starts the bytes) with `bytes`
    /// already fetched: they never count.
    package mutating func start(at time: Double, bytes: Int64) {
        samples = [Sample(time: time, bytes: bytes)]
    }

    /// Ends the attempt (pause, failure, verified): the estimate is unknown until the next ``start(at:bytes:)``.
    package mutating func stop() { samples = [] }

    /// Records the attempt's fetched-byte counter at `time`.
    package mutating func record(bytes: Int64, at time: Double) {
        guard let last = samples.last, time >= last.time else { return }
        if bytes < samples[0].bytes {  // the counter went back: a restart from zero
            samples = [Sample(time: time, bytes: bytes)]
            return
        }
        guard bytes > last.bytes else { return }
        samples.append(Sample(time: time, bytes: bytes))
        // Keep the newest sample at least `window` old as the reference; drop what is older.
        while samples.count > 2, samples[1].time <= time - window { samples.removeFirst() }
        if samples.count > Self.maximumSamples { samples.removeFirst(samples.count - Self.maximumSamples) }
    }

    /// Seconds until the attempt has fetched `total` bytes, given that the caller counts `counted` of them (what
    /// it reports; the estimator's own count is used when larger), or -1 if unknown. With `atLeast` (bytes a
    /// second, 0: none) the rate is at least that, and known from it as soon as the attempt's first bytes are
    /// recorded (a rate the running connections are known to reach, ``TransferPace``); a stall is unknown either way.
    package func timeRemaining(total: Int64, counted: Int64, at time: Double, atLeast: Double = 0) -> Double {
        guard let newest = samples.last, samples.count >= 2, time - newest.time < stallAfter else {
            return downloadTimeRemainingUnknown
        }
        let rate = max(rate(at: time) ?? 0, atLeast)
        guard rate > 0 else { return downloadTimeRemainingUnknown }
        let remaining = max(0, total - max(counted, newest.bytes))
        return Double(remaining) / rate
    }

    /// The rate as of `time` (`nil`: as of the newest sample, no allowance for silence since).
    private func rate(at time: Double?) -> Double? {
        guard samples.count >= 2, let first = samples.first, let newest = samples.last else { return nil }
        var span = newest.time - first.time
        guard span >= minimumSpan, span > 0 else { return nil }
        if let time { span = max(span, time - first.time - slack) }
        return Double(newest.bytes - first.bytes) / span
    }
}
