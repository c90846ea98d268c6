/// Progress for a pipe or a file: plain lines, no escape codes, no bar.
///
/// A line for every state change and, while the state stays the same, at most one per ``interval`` per
/// download, so a log stays readable. Pure: give it rows and instants, it gives back the lines to print.
struct PlainProgressWriter: Sendable {
    /// Least time between two progress lines for the same download in the same state.
    var interval: Duration = .seconds(3)
    private var renderer = ProgressRenderer(width: 160, colour: false, showsBar: false)
    private var last: [String: (state: String, time: ContinuousClock.Instant)] = [:]

    init(interval: Duration = .seconds(3)) { self.interval = interval }

    /// The line to print for `row` at `now`, or nil when it is too soon since the last one.
    mutating func line(for row: ProgressRow, at now: ContinuousClock.Instant) -> String? {
        if let previous = last[row.name], previous.state == row.state,
           row.isFinal || previous.time.duration(to: now) < interval
        {
            return nil
        }
        last[row.name] = (row.state, now)
        return Self.trimmed(renderer.line(for: row, nameColumn: row.name.count))
    }

    /// The closing line for `row` at the end of a run, unless its final state was already printed.
    mutating func finalLine(for row: ProgressRow, at now: ContinuousClock.Instant) -> String? {
        if let previous = last[row.name], previous.state == row.state, row.isFinal { return nil }
        last[row.name] = (row.state, now)
        return Self.trimmed(renderer.line(for: row, nameColumn: row.name.count))
    }

    /// Collapses the column padding a terminal needs but a log does not.
    private static func trimmed(_ line: String) -> String {
        line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
