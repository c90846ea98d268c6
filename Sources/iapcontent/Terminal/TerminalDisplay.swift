/// The live display on a terminal: one line per download, redrawn in place at most ~10 times a second.
///
/// Redraws by moving the cursor up over its own lines and rewriting each (`\r` + clear-line), so nothing
/// flickers and nothing else on the screen is touched; it never hides the cursor or switches screens,
/// so an abrupt exit cannot leave the terminal in a state it would need to restore. ``finish(summary:)``
/// draws the final frame and the summary and leaves the cursor on a fresh line.
actor TerminalDisplay: ProgressReporter {
    /// Least time between two frames (≈ 10 redraws a second).
    static let frameInterval: Duration = .milliseconds(100)

    private let colour: Bool
    private let output: @Sendable (String) -> Void
    private let columns: @Sendable () -> Int
    private let clock = ContinuousClock()
    private var tracker = ProgressTracker()
    private var drawnLines = 0
    private var lastFrame: ContinuousClock.Instant?
    private var dirty = false
    private var finished = false
    private var ticker: Task<Void, Never>?

    /// A display writing to `output` (standard output by default) for a terminal `columns()` wide.
    init(
        colour: Bool, output: @escaping @Sendable (String) -> Void = Output.write,
        columns: @escaping @Sendable () -> Int = { TerminalCapabilities.columns() }
    ) {
        self.colour = colour
        self.output = output
        self.columns = columns
    }

    /// Starts the ticker that redraws pending changes and turns silent downloads `stalled`.
    func start() {
        guard ticker == nil, !finished else { return }
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.frameInterval)
                await self?.tick()
            }
        }
    }

    func update(_ row: ProgressRow) {
        guard !finished else { return }
        _ = tracker.observe(row, at: clock.now)
        dirty = true
        if let lastFrame, lastFrame.duration(to: clock.now) < Self.frameInterval { return }
        draw()
    }

    func message(_ text: String) {
        guard !finished else {
            output(text + "\n")
            return
        }
        output(erase() + text + "\n")
        drawnLines = 0
        draw()
    }

    func finish(summary: RunSummary?) {
        guard !finished else { return }
        ticker?.cancel()
        ticker = nil
        draw()
        finished = true
        if let summary {
            output(ProgressRenderer(width: usableWidth, colour: colour).summaryLine(summary) + "\n")
        }
    }

    /// The frame the ticker would draw now, for tests (no output).
    func currentLines() -> [String] {
        ProgressRenderer(width: usableWidth, colour: colour).lines(for: tracker.refresh(at: clock.now))
    }

    // MARK: - Drawing

    private func tick() {
        guard !finished else { return }
        let rows = tracker.refresh(at: clock.now)
        if dirty || rows.contains(where: \.stalled) { draw() }
    }

    /// One column less than the terminal: writing into the last column makes some terminals wrap.
    private var usableWidth: Int { max(1, columns() - 1) }

    /// Rewrites every live line in place (one `write`, so the terminal never shows half a frame).
    private func draw() {
        let lines = ProgressRenderer(width: usableWidth, colour: colour).lines(for: tracker.refresh(at: clock.now))
        var frame = drawnLines > 0 ? "\u{1B}[\(drawnLines)A" : ""
        for line in lines { frame += "\r\u{1B}[K" + line + "\n" }
        if lines.count < drawnLines { frame += "\u{1B}[J" }  // fewer rows than before: clear the rest
        output(frame)
        drawnLines = lines.count
        lastFrame = clock.now
        dirty = false
    }

    /// Moves to the first live line and clears from there down.
    private func erase() -> String {
        drawnLines > 0 ? "\u{1B}[\(drawnLines)A\r\u{1B}[J" : "\r\u{1B}[K"
    }
}
