import ArgumentParser
import ContentCommandLine
import Foundation
import Synchronization

extension IAPContent {
    /// `iapcontent display-demo` (hidden): the progress display driven by simulated downloads.
    ///
    /// Shows what `download` looks like on this terminal (or in a pipe, or with --json) without a server,
    /// and lets the terminal tests check bar, ETA, stall and Ctrl-C handling in a real pty (tmux).
    /// Nothing is downloaded or written.
    struct DisplayDemo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "display-demo",
            abstract: "Show the download progress display with simulated downloads (nothing is downloaded).",
            discussion: HelpText.displayDemo,
            shouldDisplay: false)

        @Option(help: "Seconds the fastest simulated download takes.")
        var seconds: Double = 4

        @Flag(help: "JSON lines instead of the display (same events as `download --json`).")
        var json = false

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be between 0 and 3600") }
        }

        func run() async throws {
            global.bootstrapLogging()
            let reporter = ProgressReporters.make(json: json, quiet: global.quiet)
            let interrupted = Mutex(false)
            signal(SIGINT, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            source.setEventHandler { interrupted.withLock { $0 = true } }
            source.resume()
            defer { source.cancel() }

            // size, bytes per step (100 ms), and the step after which it stops receiving (stall demo).
            let plans: [(id: String, size: Int64, stallAfter: Int?)] = [
                ("com.example.maps.europe", 734_003_200, nil),
                ("com.example.voices.en-GB", 88_080_384, nil),
                ("com.example.fonts", 5_242_880, Int(seconds * 4)),
            ]
            let steps = max(1, Int(seconds * 10))
            var rows = plans.map {
                ProgressRow(productID: $0.id, contentVersion: "1.0", state: "waiting", downloadedBytes: 0, expectedBytes: $0.size)
            }
            for row in rows { await reporter.update(row) }
            let started = ContinuousClock.now
            var step = 0
            while rows.contains(where: { !$0.isFinal }) {
                if interrupted.withLock({ $0 }) {
                    for index in rows.indices where !rows[index].isFinal {
                        rows[index].state = "paused"
                        await reporter.update(rows[index])
                    }
                    await reporter.finish(summary: nil)
                    if !json { Output.line("Paused. Run the same command again to resume.") }
                    throw ExitStatus.interrupted
                }
                step += 1
                for (index, plan) in plans.enumerated() where !rows[index].isFinal {
                    rows[index].state = "active"
                    let perStep = plan.size / Int64(steps * (index + 1))
                    if let stall = plan.stallAfter, step > stall { continue }
                    rows[index].downloadedBytes = min(plan.size, rows[index].downloadedBytes + perStep)
                    rows[index].timeRemaining = Double(plan.size - rows[index].downloadedBytes) / Double(perStep * 10)
                    if rows[index].downloadedBytes == plan.size {
                        rows[index].state = "finished"
                        rows[index].timeRemaining = -1
                    }
                    await reporter.update(rows[index])
                }
                if step > steps * 6 { break }  // the stalled one never finishes: stop after a while
                try await Task.sleep(for: .milliseconds(100))
            }
            let finished = rows.filter { $0.state == "finished" }
            await reporter.finish(
                summary: RunSummary(
                    files: finished.count, bytes: finished.reduce(0) { $0 + $1.downloadedBytes }, since: started))
            if finished.count < rows.count { throw ExitStatus.failure }
        }
    }
}
