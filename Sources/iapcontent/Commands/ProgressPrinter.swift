import ContentDownloads
import Foundation

/// Plain progress lines for `download`: every state change, and progress at most once a second
/// per download. Small on purpose so a TTY UI can replace it.
final class ProgressPrinter {
    private var lastState: [String: DownloadState] = [:]
    private var lastPrint: [String: Date] = [:]

    /// Prints the snapshot if it changed state or a second has passed.
    func show(_ snapshot: DownloadSnapshot) {
        let now = Date()
        let changed = lastState[snapshot.productID] != snapshot.state
        if !changed, let last = lastPrint[snapshot.productID], now.timeIntervalSince(last) < 1 { return }
        lastState[snapshot.productID] = snapshot.state
        lastPrint[snapshot.productID] = now
        printLine(Self.line(snapshot))
    }

    /// One line: product, state, percent, bytes, time remaining, error.
    static func line(_ s: DownloadSnapshot) -> String {
        var text = "\(s.productID) \(s.contentVersion): \(s.state.rawValue) "
        text += String(format: "%5.1f%% ", s.progress * 100)
        text += "\(bytes(s.downloadedBytes))/\(bytes(s.expectedContentLength))"
        if s.state == .active { text += s.timeRemaining < 0 ? ", time remaining unknown" : ", \(Int(s.timeRemaining.rounded())) s left" }
        if let error = s.error, s.state == .failed || s.state == .waiting { text += " — \(error.message)" }
        return text
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n), unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }
}
