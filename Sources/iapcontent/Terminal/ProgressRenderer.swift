import ContentDownloads
import Foundation
import Rainbow

/// Turns ``ProgressRow``s into text lines for a terminal of a given width, with or without colour.
///
/// Pure: the same rows, width and colour setting always give the same lines, so every layout rule is
/// tested without a terminal. A line never shows more than `width` characters: when space runs out the
/// speed goes first, then bytes, the bar, time remaining and the state; the product name is cut with `…`.
///
///     com.example.maps   active    [██████▌     ]  54.3%  12.3 MiB/22.6 MiB  4.5 MiB/s  00:03
struct ProgressRenderer: Sendable {
    /// Columns available (lines are at most this many visible characters).
    var width: Int
    /// Whether to colour the state, bar and errors (ANSI escapes via Rainbow).
    var colour: Bool
    /// Whether to draw the bar (off for plain, non-terminal output).
    var showsBar: Bool = true

    /// The widest the bar gets, brackets included.
    static let maximumBarWidth = 42
    /// The narrowest bar worth drawing, brackets included.
    static let minimumBarWidth = 10
    /// The product-name column never grows past this (longer names are cut with `…`).
    static let maximumNameWidth = 40

    /// Column widths: `cancelled`, `100.0%`, `1023.9 MiB/1023.9 MiB`, `1023.9 MiB/s`, `h:mm:ss`/`stalled`.
    private static let stateWidth = 9, percentWidth = 6, bytesWidth = 21, speedWidth = 12, etaWidth = 7

    /// One line per row, names aligned in one column.
    func lines(for rows: [ProgressRow]) -> [String] {
        let nameColumn = min(Self.maximumNameWidth, rows.map(\.name.count).max() ?? 0)
        return rows.map { line(for: $0, nameColumn: nameColumn) }
    }

    /// The fields a line can show, in the order they are dropped when the width is too small.
    private enum Field: CaseIterable { case speed, bytes, bar, eta, state, percent }

    /// One row as a line of at most `width` visible characters; the name is padded to `nameColumn`.
    func line(for row: ProgressRow, nameColumn: Int) -> String {
        let width = max(1, self.width)
        let nameColumn = max(1, min(nameColumn, Self.maximumNameWidth))
        if row.state == "failed" || (row.error != nil && row.state == "waiting") {
            return errorLine(row, nameColumn: nameColumn, width: width)
        }
        var fields = Field.allCases.filter { showsBar || $0 != .bar }
        // Keep a readable name (a quarter of the line, at least 8) before squeezing it further.
        var nameWidth = min(nameColumn, max(8, width / 4))
        while !fields.isEmpty, nameWidth + fixedWidth(of: fields) > width { fields.removeFirst() }
        if fields.isEmpty { return Formatting.truncate(row.name, to: width) }

        // What the name and the bar share: everything but the other fields (the bar's minimum included).
        let hasBar = fields.contains(.bar)
        let shared = width - fixedWidth(of: fields) + (hasBar ? Self.minimumBarWidth : 0)
        nameWidth = min(nameColumn, shared - (hasBar ? Self.minimumBarWidth : 0))
        let barWidth = hasBar ? min(Self.maximumBarWidth, shared - nameWidth) : 0

        var parts = [paint(Formatting.pad(Formatting.truncate(row.name, to: nameWidth), to: nameWidth), .bold)]
        for field in [Field.state, .bar, .percent, .bytes, .speed, .eta] where fields.contains(field) {
            switch field {
            case .state: parts.append(stateText(row.state))
            case .bar: parts.append(bar(row, width: barWidth))
            case .percent: parts.append(Formatting.percent(row.progress))
            case .bytes:
                let total = row.expectedBytes > 0 ? Formatting.bytes(row.expectedBytes) : "?"
                parts.append(Formatting.pad("\(Formatting.bytes(row.downloadedBytes))/\(total)", to: Self.bytesWidth, alignRight: true))
            case .speed:
                let text = row.state == "active" && row.bytesPerSecond != nil ? Formatting.speed(row.bytesPerSecond) : ""
                parts.append(Formatting.pad(text, to: Self.speedWidth, alignRight: true))
            case .eta: parts.append(etaText(row))
            }
        }
        return clip(parts.joined(separator: " "), to: width)
    }

    /// The summary printed once at the end: `3 files, 1.0 GiB in 12.3 s, 83.2 MiB/s`.
    func summaryLine(_ summary: RunSummary) -> String {
        clip(summary.description, to: max(1, width))
    }

    // MARK: - Pieces

    /// Width of the chosen fields plus one space before each (the name is not included).
    private func fixedWidth(of fields: [Field]) -> Int {
        fields.reduce(0) { total, field in
            total + 1 + {
                switch field {
                case .speed: Self.speedWidth
                case .bytes: Self.bytesWidth
                case .state: Self.stateWidth
                case .eta: Self.etaWidth
                case .bar: Self.minimumBarWidth
                case .percent: Self.percentWidth
                }
            }()
        }
    }

    private func errorLine(_ row: ProgressRow, nameColumn: Int, width: Int) -> String {
        let nameWidth = min(nameColumn, width)
        let name = Formatting.pad(Formatting.truncate(row.name, to: nameWidth), to: nameWidth)
        let rest = width - nameWidth - Self.stateWidth - 2
        guard rest > 0 else { return Formatting.truncate(row.name, to: width) }
        let message = Formatting.truncate((row.error?.message ?? "failed").replacingOccurrences(of: "\n", with: " "), to: rest)
        return [paint(name, .bold), stateText(row.state), paint(message, .red)].joined(separator: " ")
    }

    private func stateText(_ state: String) -> String {
        let text = Formatting.pad(state, to: Self.stateWidth)
        switch state {
        case "active": return paint(text, .cyan)
        case "finished": return paint(text, .green)
        case "failed": return paint(text, .red)
        case "paused", "cancelled": return paint(text, .yellow)
        default: return paint(text, .dim)
        }
    }

    /// Time remaining for an active download: `mm:ss`, `h:mm:ss`, `--:--` or `stalled`; blank otherwise.
    private func etaText(_ row: ProgressRow) -> String {
        guard row.state == "active" else { return String(repeating: " ", count: Self.etaWidth) }
        if row.stalled { return paint(Formatting.pad("stalled", to: Self.etaWidth, alignRight: true), .yellow) }
        return Formatting.pad(Formatting.eta(row.timeRemaining), to: Self.etaWidth, alignRight: true)
    }

    /// `[████▌     ]`: full blocks plus one eighth-block for the fraction, brackets included in `width`.
    private func bar(_ row: ProgressRow, width: Int) -> String {
        let inner = max(1, width - 2)
        let eighths = Int((row.progress * Double(inner * 8)).rounded(.down))
        let full = min(inner, eighths / 8)
        var filled = String(repeating: "█", count: full)
        if full < inner, eighths % 8 > 0 {
            filled += String(["▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8 - 1])
        }
        let empty = String(repeating: colour ? "░" : " ", count: inner - filled.count)
        let style: NamedColor = row.state == "finished" ? .green : (row.stalled ? .yellow : .cyan)
        return "[" + paint(filled, style) + paint(empty, .dim) + "]"
    }

    private func paint(_ text: String, _ color: NamedColor) -> String {
        colour && !text.isEmpty ? text.applyingColor(color) : text
    }

    private func paint(_ text: String, _ style: Style) -> String {
        colour && !text.isEmpty ? text.applyingStyle(style) : text
    }

    /// Safety net: cuts trailing visible characters beyond `width` (only plain text can reach here long).
    private func clip(_ text: String, to width: Int) -> String {
        let visible = Formatting.visible(text)
        guard visible.count > width else { return text }
        return colour ? Formatting.truncate(visible, to: width) : Formatting.truncate(text, to: width)
    }
}
