/// What a finished run did, for the summary line: `3 files, 1.0 GiB in 12.3 s, 83.2 MiB/s`.
struct RunSummary: Sendable, Equatable, CustomStringConvertible {
    /// Downloads that finished.
    var files: Int
    /// Bytes received in this run (not counting bytes already on disk from an earlier run).
    var bytes: Int64
    /// Wall-clock seconds the run took.
    var elapsed: Double

    /// Average speed over the run, nil for a run too short to measure.
    var averageBytesPerSecond: Double? { elapsed > 0.001 ? Double(bytes) / elapsed : nil }

    var description: String {
        var text = "\(files) \(files == 1 ? "file" : "files"), \(Formatting.bytes(bytes)) in \(Formatting.elapsed(elapsed))"
        if let speed = averageBytesPerSecond { text += ", \(Formatting.speed(speed))" }
        return text
    }
}

extension RunSummary {
    /// A summary of a run that started at `started` and ends now.
    init(files: Int, bytes: Int64, since started: ContinuousClock.Instant) {
        self.init(files: files, bytes: bytes, elapsed: started.duration(to: .now).inSeconds)
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
