/// Adds what the engine's snapshots lack for a person watching: current speed, "stalled", bytes this run.
///
/// Feed every row with ``observe(_:at:)``; call ``refresh(at:)`` periodically so a download that stops
/// receiving turns `stalled` even when no new snapshot arrives. Pure value type: tests pass instants.
struct ProgressTracker: Sendable {
    /// No new bytes for this long marks an active download as stalled.
    var stallAfter: Duration = .seconds(5)
    /// Speed samples closer together than this are merged (smooths bursty delivery).
    var sampleInterval: Duration = .milliseconds(500)

    private struct Entry: Sendable {
        var row: ProgressRow
        var firstBytes: Int64
        var sampleBytes: Int64
        var sampleTime: ContinuousClock.Instant
        var lastByteTime: ContinuousClock.Instant
        var speed: Double?
    }

    private var entries: [String: Entry] = [:]
    private var order: [String] = []

    init() {}

    /// Records `row` seen at `now` and returns it with speed, stalled and (if missing) time remaining filled in.
    mutating func observe(_ row: ProgressRow, at now: ContinuousClock.Instant) -> ProgressRow {
        guard var entry = entries[row.name] else {
            order.append(row.name)
            let entry = Entry(
                row: row, firstBytes: row.downloadedBytes, sampleBytes: row.downloadedBytes, sampleTime: now,
                lastByteTime: now, speed: nil)
            entries[row.name] = entry
            return decorate(entry, at: now)
        }
        if row.downloadedBytes != entry.row.downloadedBytes { entry.lastByteTime = now }
        if row.downloadedBytes < entry.sampleBytes {  // restarted from scratch (e.g. validator changed)
            entry.sampleBytes = row.downloadedBytes
            entry.sampleTime = now
            entry.firstBytes = min(entry.firstBytes, row.downloadedBytes)
        }
        let span = entry.sampleTime.duration(to: now)
        if span >= sampleInterval {
            let instant = Double(row.downloadedBytes - entry.sampleBytes) / span.inSeconds
            entry.speed = entry.speed.map { 0.7 * $0 + 0.3 * instant } ?? instant
            entry.sampleBytes = row.downloadedBytes
            entry.sampleTime = now
        }
        if row.state != "active" { entry.speed = nil }
        entry.row = row
        entries[row.name] = entry
        return decorate(entry, at: now)
    }

    /// Every row in first-seen order, with `stalled` recomputed for `now`.
    func refresh(at now: ContinuousClock.Instant) -> [ProgressRow] {
        order.compactMap { entries[$0].map { decorate($0, at: now) } }
    }

    /// Bytes received since each download was first observed (the summary's "bytes this run").
    var bytesThisRun: Int64 {
        entries.values.reduce(0) { $0 + max(0, $1.row.downloadedBytes - $1.firstBytes) }
    }

    private func decorate(_ entry: Entry, at now: ContinuousClock.Instant) -> ProgressRow {
        var row = entry.row
        row.bytesPerSecond = row.bytesPerSecond ?? entry.speed
        row.stalled = row.stalled || (row.state == "active" && entry.lastByteTime.duration(to: now) >= stallAfter)
        if row.stalled { row.bytesPerSecond = 0 }  // an old sample would claim speed that is not there
        if row.timeRemaining < 0, !row.stalled, let speed = row.bytesPerSecond, speed > 0, row.expectedBytes > 0,
           row.state == "active"
        {
            row.timeRemaining = Double(max(0, row.expectedBytes - row.downloadedBytes)) / speed
        }
        return row
    }
}
