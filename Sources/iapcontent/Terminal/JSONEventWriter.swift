import Foundation

/// `--json` progress: one JSON object per line, with the same keys as `status --json` plus `event`.
///
/// Keys, exactly: `event` (`state`, `progress`, `error` or `finish`), `productID`, `contentVersion`,
/// `state`, `downloadedBytes`, `expectedContentLength`, `progress`, `timeRemaining` (-1 unknown),
/// `error` (message or null). State changes and errors are always written; progress at most once per
/// ``progressInterval`` per download; ``finishEvents(for:)`` gives one `finish` object per download
/// with its final state, so a script can read outcomes from the last lines.
struct JSONEventWriter: Sendable {
    /// The kinds of event written.
    enum Event: String, Sendable, CaseIterable { case state, progress, error, finish }

    /// Least time between two `progress` events for the same download.
    var progressInterval: Duration = .milliseconds(500)
    private var last: [String: (row: ProgressRow, progressTime: ContinuousClock.Instant)] = [:]

    init(progressInterval: Duration = .milliseconds(500)) { self.progressInterval = progressInterval }

    /// The JSON lines `row` at `now` calls for (none, or one per kind of change).
    mutating func events(for row: ProgressRow, at now: ContinuousClock.Instant) -> [String] {
        var lines: [String] = []
        let previous = last[row.productID]
        var progressTime = previous?.progressTime ?? now
        if previous?.row.state != row.state {
            lines.append(Self.encode(.state, row))
            progressTime = now
        } else if previous?.row.downloadedBytes != row.downloadedBytes,
                  let previous, previous.progressTime.duration(to: now) >= progressInterval
        {
            lines.append(Self.encode(.progress, row))
            progressTime = now
        }
        if let error = row.error, error != previous?.row.error { lines.append(Self.encode(.error, row)) }
        last[row.productID] = (row, progressTime)
        return lines
    }

    /// One `finish` object per download seen, with its last known values.
    func finishEvents(for rows: [ProgressRow]) -> [String] {
        rows.map { Self.encode(.finish, $0) }
    }

    /// One event as a single line of JSON (sorted keys, no trailing newline).
    static func encode(_ event: Event, _ row: ProgressRow) -> String {
        let object = EventObject(
            event: event.rawValue, productID: row.productID, contentVersion: row.contentVersion, state: row.state,
            downloadedBytes: row.downloadedBytes, expectedContentLength: row.expectedBytes, progress: row.progress,
            timeRemaining: row.state == "active" && !row.stalled ? row.timeRemaining : -1, error: row.error)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private struct EventObject: Encodable {
        var event: String
        var productID: String
        var contentVersion: String
        var state: String
        var downloadedBytes: Int64
        var expectedContentLength: Int64
        var progress: Double
        var timeRemaining: Double
        var error: String?

        enum CodingKeys: String, CodingKey { case event }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(event, forKey: .event)
            try DownloadJSONKeys.encode(
                to: encoder, productID: productID, contentVersion: contentVersion, state: state,
                downloadedBytes: downloadedBytes, expectedContentLength: expectedContentLength, progress: progress,
                timeRemaining: timeRemaining, error: error)
        }
    }
}
