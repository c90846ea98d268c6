import ContentDownloads
import Foundation

/// `--json` progress: one JSON object per line, with the same keys as `status --json` plus `event`.
///
/// Keys, exactly: `event` (`state`, `progress`, `error` or `finish`) and the library's wire form of a download:
/// `productID`, `contentIdentifier`, `contentVersion`, `state`, `downloadedBytes`, `expectedContentLength`,
/// `progress`, `timeRemaining` (-1 unknown), `error` (`{"code", "message"}` or null), and `packs: true` on the
/// download of a purchase's prefetch packs (which follows the purchase's own download of the product). State changes and errors are always written; progress at most once per
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
        let previous = last[row.name]
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
        last[row.name] = (row, progressTime)
        return lines
    }

    /// One `finish` object per download seen, with its last known values.
    func finishEvents(for rows: [ProgressRow]) -> [String] {
        rows.map { Self.encode(.finish, $0) }
    }

    /// One event as a single line of JSON (sorted keys, no trailing newline).
    static func encode(_ event: Event, _ row: ProgressRow) -> String {
        (try? JSONText.encode(EventObject(event: event.rawValue, packs: row.packs ? true : nil, download: DownloadSnapshot(row)), pretty: false)) ?? "{}"
    }

    /// An event: its `event` key beside the download keys.
    private struct EventObject: Encodable {
        var event: String
        var packs: Bool?
        var download: DownloadSnapshot

        enum CodingKeys: String, CodingKey { case event, packs }

        /// `event`, then the download keys, in one object.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(event, forKey: .event)
            try c.encodeIfPresent(packs, forKey: .packs)
            try download.encode(to: encoder)
        }
    }
}
