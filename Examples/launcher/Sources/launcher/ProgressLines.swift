import ContentDownloads
import Foundation
import Synchronization

/// Prints a line per download state change and at most one progress line per second per product.
enum ProgressLines {
    static func follow<Updates: AsyncSequence & Sendable>(_ updates: Updates) async where Updates.Element == ContentQueueUpdate {
        var lastLine: [String: Date] = [:]
        var lastState: [String: DownloadState] = [:]
        do {
            for try await update in updates {
                if case .contentRemoved(let productIDs) = update {
                    for productID in productIDs { say("removed: \(productID) (entitlement withdrawn)") }
                }
                guard case .downloads(let downloads) = update else { continue }
                for download in downloads {
                    let changed = lastState[download.productID] != download.state
                    let due = Date().timeIntervalSince(lastLine[download.productID] ?? .distantPast) >= 1
                    guard changed || due else { continue }
                    lastState[download.productID] = download.state
                    lastLine[download.productID] = Date()
                    let remaining = download.timeRemaining < 0 ? "--" : String(format: "%.0f s", download.timeRemaining)
                    say("\(download.productID) \(download.state) \(String(format: "%.1f", download.progress * 100)) % \(remaining)")
                }
            }
        } catch {}
    }
}

/// True the first time only (a signal handler may fire more than once).
final class OnceFlag: Sendable {
    private let taken = Mutex(false)
    func take() -> Bool { taken.withLock { value in defer { value = true }; return !value } }
}

/// Writes one line to standard output at once (no buffering: a log file or pipe sees it as it happens).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
