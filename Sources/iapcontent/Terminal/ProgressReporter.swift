import Foundation
@preconcurrency import Rainbow

/// Where `download` sends progress: a live terminal display, plain lines, JSON lines, or nothing.
///
/// One reporter per run. The command calls ``update(_:)`` for every engine snapshot (converted to a
/// ``ProgressRow``), ``message(_:)`` for notes (e.g. "paused from another shell"), and ``finish(summary:)``
/// exactly once at the end, also after Ctrl-C, so the terminal is left with clean lines.
protocol ProgressReporter: Actor {
    /// Shows the latest values of one download.
    func update(_ row: ProgressRow)
    /// Prints a note on its own line (above the live lines on a terminal).
    func message(_ text: String)
    /// Prints the final state of every download and the summary line; later calls do nothing.
    func finish(summary: RunSummary?)
}

/// Picks the reporter for the current output and flags.
enum ProgressReporters {
    /// `--json` → JSON lines; `--quiet` → nothing; a terminal → live display; otherwise plain lines.
    static func make(json: Bool, quiet: Bool, capabilities: TerminalCapabilities = .detect()) -> any ProgressReporter {
        Rainbow.enabled = capabilities.colour
        Rainbow.outputTarget = capabilities.colour ? .console : .unknown
        if json { return LineProgressReporter(format: .json(JSONEventWriter())) }
        if quiet { return SilentProgressReporter() }
        if capabilities.isTerminal {
            let display = TerminalDisplay(colour: capabilities.colour)
            Task { await display.start() }
            return display
        }
        return LineProgressReporter(format: .plain(PlainProgressWriter()))
    }
}

/// Reports nothing but the summary's absence of noise: `--quiet`.
actor SilentProgressReporter: ProgressReporter {
    func update(_ row: ProgressRow) {}
    func message(_ text: String) {}
    func finish(summary: RunSummary?) {}
}

/// Plain or JSON lines, one write per line, for pipes, files and scripts.
actor LineProgressReporter: ProgressReporter {
    /// Which line format, with its rate-limiting state.
    enum Format: Sendable {
        case plain(PlainProgressWriter)
        case json(JSONEventWriter)
    }

    private var format: Format
    private var tracker = ProgressTracker()
    private let output: @Sendable (String) -> Void
    private let clock = ContinuousClock()
    private var finished = false

    /// A reporter writing `format` lines to `output` (standard output by default).
    init(format: Format, output: @escaping @Sendable (String) -> Void = Output.write) {
        self.format = format
        self.output = output
    }

    func update(_ row: ProgressRow) {
        guard !finished else { return }
        let now = clock.now
        let row = tracker.observe(row, at: now)
        switch format {
        case .plain(var writer):
            if let line = writer.line(for: row, at: now) { output(line + "\n") }
            format = .plain(writer)
        case .json(var writer):
            for line in writer.events(for: row, at: now) { output(line + "\n") }
            format = .json(writer)
        }
    }

    func message(_ text: String) {
        guard !finished else { return }
        if case .plain = format { output(text + "\n") }
    }

    func finish(summary: RunSummary?) {
        guard !finished else { return }
        finished = true
        switch format {
        case .plain(var writer):
            let now = clock.now
            for row in tracker.refresh(at: now) {
                if let line = writer.finalLine(for: row, at: now) { output(line + "\n") }
            }
            format = .plain(writer)
            if let summary { output(summary.description + "\n") }
        case .json(let writer):
            for line in writer.finishEvents(for: tracker.refresh(at: clock.now)) { output(line + "\n") }
        }
    }
}
