import ContentPublishing
import ContentDownloads
import Foundation

/// What `publish` shows while it runs: a line per object sent or found already there and, for a large upload,
/// its progress (percent, bytes, speed, time remaining) redrawn in place on a terminal at most 10 times a second,
/// or a plain line every 5 seconds in a pipe; the switch of the catalog last.
final class PublishDisplay {
    private let quiet: Bool
    private let terminal = TerminalCapabilities.detect()
    private var lastDraw = Date.distantPast
    private var started: (name: String, at: Date)?
    private var liveLine = false

    /// A display; `quiet` shows nothing but what the command prints at the end.
    init(quiet: Bool) { self.quiet = quiet }

    /// Shows one event.
    func show(_ event: PublishEvent) {
        guard !quiet else { return }
        switch event {
        case .probed(let server):
            line("\(server) honours conditional writes")
        case .present(let name, let bytes):
            line("already there  \(name) (\(Formatting.bytes(bytes)))")
        case .uploading(let name, let bytes, let parts):
            started = (name, Date())
            if parts > 1 { line("uploading      \(name) (\(Formatting.bytes(bytes)), \(parts) parts)") }
        case .progress(let name, let sent, let total):
            progress(name, sent: sent, total: total)
        case .uploaded(let name, let bytes):
            let seconds = started.flatMap { $0.name == name ? Date().timeIntervalSince($0.at) : nil } ?? 0
            let speed = seconds > 0.05 ? ", \(Formatting.speed(Double(bytes) / seconds))" : ""
            line("sent           \(name) (\(Formatting.bytes(bytes))\(speed))")
        case .switched(let version, let previous):
            line("switched       catalog.json to catalogVersion \(version)" + (previous.map { " (was \($0))" } ?? " (first publish)"))
        case .alreadyLive(let version):
            line("already live   catalog.json at catalogVersion \(version)")
        case .legacySignatureUpdated:
            line("updated        catalog.json.sig (for clients that read it beside catalog.json)")
        case .repositorySwitched(let version, let previous):
            line("switched       metadata/timestamp.json to version \(version)" + (previous.map { " (was \($0))" } ?? " (first publish)"))
        case .repositoryAlreadyLive(let version):
            line("already live   metadata/timestamp.json at version \(version)")
        }
    }

    /// Ends a live line, if one is drawn.
    func finish() {
        if liveLine { Output.write("\n") }
        liveLine = false
    }

    private func progress(_ name: String, sent: Int64, total: Int64) {
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= (terminal.isTerminal ? 0.1 : 5) else { return }
        lastDraw = now
        let elapsed = started.map { now.timeIntervalSince($0.at) } ?? 0
        let rate = elapsed > 0 ? Double(sent) / elapsed : nil
        let remaining = rate.map { $0 > 0 ? Double(total - sent) / $0 : .infinity } ?? .infinity
        let text = "  \(Self.abbreviated(name))  \(Formatting.percent(total > 0 ? Double(sent) / Double(total) : 1))  "
            + "\(Formatting.bytes(sent)) / \(Formatting.bytes(total))  \(Formatting.speed(rate))  \(Formatting.eta(remaining))"
        if terminal.isTerminal {
            Output.write("\r\u{1B}[K" + Formatting.truncate(text, to: TerminalCapabilities.columns() - 1))
            liveLine = true
        } else {
            Output.line(text)
        }
    }

    /// `archives/6e18cd8c5ae7…tar.zst`: the 64-digit hash of a content-addressed name cut to 12, so the live line
    /// keeps room for the speed and the time remaining.
    static func abbreviated(_ name: String) -> String {
        guard let slash = name.lastIndex(of: "/") else { return name }
        let file = name[name.index(after: slash)...]
        let hex = file.prefix { $0.isHexDigit }
        guard hex.count == 64 else { return name }
        return name[...slash] + hex.prefix(12) + "…" + file.dropFirst(64).drop { $0 == "." }
    }

    private func line(_ text: String) {
        finish()
        Output.line(text)
    }
}
