import Foundation

/// Human units for the progress display: binary byte sizes, speeds, ETAs and elapsed times.
enum Formatting {
    /// `512 B`, `12.3 KiB`, `1.0 GiB` (binary units, one decimal).
    static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        guard count >= 1024 else { return "\(max(0, count)) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        // 1023.96 would print as "1024.0 KiB"; move to the next unit instead.
        if (value * 10).rounded() / 10 >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }

    /// `45.6 MiB/s`; `--` when the speed is not known yet.
    static func speed(_ bytesPerSecond: Double?) -> String {
        guard let bytesPerSecond, bytesPerSecond.isFinite, bytesPerSecond >= 0 else { return "-- B/s" }
        return bytes(Int64(bytesPerSecond.rounded())) + "/s"
    }

    /// Time remaining: `mm:ss` under an hour, `h:mm:ss` above, `--:--` when unknown (negative or not finite).
    static func eta(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let hours = total / 3600, minutes = (total % 3600) / 60, secs = total % 60
        if hours > 0 { return String(format: "%d:%02d:%02d", hours, minutes, secs) }
        return String(format: "%02d:%02d", minutes, secs)
    }

    /// Elapsed time for the summary: `0.4 s`, `12.3 s`, `2 m 05 s`, `1 h 02 m`.
    static func elapsed(_ seconds: Double) -> String {
        let seconds = max(0, seconds.isFinite ? seconds : 0)
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let total = Int(seconds.rounded())
        if total < 3600 { return String(format: "%d m %02d s", total / 60, total % 60) }
        return String(format: "%d h %02d m", total / 3600, (total % 3600) / 60)
    }

    /// Percent with one decimal, right-aligned to 6 columns: ` 45.2%`, `100.0%`.
    static func percent(_ fraction: Double) -> String {
        let value = (min(1, max(0, fraction.isFinite ? fraction : 0)) * 1000).rounded(.down) / 10
        return String(format: "%5.1f%%", value)
    }

    /// Cuts `text` to at most `width` characters, ending with `…` when cut.
    static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard text.count > width else { return text }
        if width == 1 { return "…" }
        return String(text.prefix(width - 1)) + "…"
    }

    /// Pads `text` with spaces on the right (or the left with `alignRight`) to `width` characters.
    static func pad(_ text: String, to width: Int, alignRight: Bool = false) -> String {
        let gap = width - text.count
        guard gap > 0 else { return text }
        let spaces = String(repeating: " ", count: gap)
        return alignRight ? spaces + text : text + spaces
    }

    /// Removes ANSI escape sequences (CSI `ESC [ … letter`), e.g. to measure what a terminal shows.
    static func visible(_ text: String) -> String {
        var result = ""
        var iterator = text.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            if scalar == "\u{1B}" {
                guard let next = iterator.next() else { break }
                if next == "[" {
                    while let c = iterator.next(), !(c.value >= 0x40 && c.value <= 0x7E) {}
                }
                continue
            }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}
