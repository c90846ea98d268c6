import ContentCommandLine
import ContentDownloads
import Foundation

/// Shared end of `download` and `restore`: finish the transactions of installed downloads, close the
/// progress display cleanly on every path, print results and pick the exit status — 0 all installed,
/// 1 a download failed, 3 interrupted (Ctrl-C/SIGTERM: paused and checkpointed), 4 cancelled.
struct RunEnding {
    /// `--json`: stdout holds JSON lines only, so notes go to stderr and result lines are left out.
    let json: Bool
    /// `--quiet`: no notes, only results and errors.
    let quiet: Bool
    /// The run's progress display.
    let reporter: any ProgressReporter
    /// Set by the signal handler.
    let interrupted: InterruptFlag
    /// When the run started, for the summary line.
    let started: ContinuousClock.Instant

    /// Ends the run; throws the ``ExitStatus`` for anything but complete success.
    func end(
        transactions: [ContentTransaction], outcome: QueueWaiter.Outcome, queue: ContentQueue,
        finishTransactions: Bool, allDone: (Int) -> String
    ) async throws {
        if interrupted.isSet {
            // The signal handler already closed the queue: every download is checkpointed and stopped
            // (the journal keeps it `waiting`, so the next run resumes it); the person sees it paused.
            for download in outcome.latest.values where download.state.isInFlight {
                var row = ProgressRow(download.snapshot)
                row.state = DownloadState.paused.rawValue
                row.timeRemaining = -1
                await reporter.update(row)
            }
            await reporter.finish(summary: nil)
            note("Paused. Run the same command again to resume.", important: true)
            throw ExitStatus.interrupted
        }
        var installed: [(productID: String, url: URL)] = []
        var failed: [String] = []
        var cancelled: [String] = []
        for transaction in transactions {
            guard let download = outcome.latest[transaction.id] else { continue }
            if download.state == .cancelled {
                cancelled.append(download.productID)
                continue
            }
            guard download.state == .finished, let url = download.contentURL else {
                failed.append("\(download.productID) \(download.state.rawValue)\(download.error.map { ": \($0.message)" } ?? "")")
                continue
            }
            if finishTransactions {
                do { try await queue.finish(transaction.id) } catch {
                    failed.append("\(download.productID): installed, but finishing transaction \(transaction.id) failed: \(error.description)")
                    continue
                }
            }
            installed.append((download.productID, url))
        }
        await queue.close()
        let elapsed = started.duration(to: .now)
        await reporter.finish(
            summary: RunSummary(
                files: installed.count, bytes: outcome.bytesThisRun,
                elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
        if !json { for item in installed { Output.line("\(item.productID): \(item.url.path)") } }
        for message in failed { Output.error(message) }
        for productID in cancelled {
            Output.error("\(productID) cancelled; its partial data was deleted. Run the same command to download it again.")
        }
        if !failed.isEmpty { throw ExitStatus.failure }
        if !cancelled.isEmpty { throw ExitStatus.cancelled }
        note(allDone(installed.count), important: false)
    }

    /// A note for a person: stdout normally, stderr with `--json` (stdout is for JSON); with `--quiet`
    /// only `important` ones (what to do next), on stderr.
    func note(_ text: String, important: Bool) {
        if quiet || json {
            if important { Output.note(text) }
            return
        }
        Output.line(text)
    }
}
