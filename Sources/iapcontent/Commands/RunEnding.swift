import ContentCommandLine
import ContentDownloads
import Foundation

/// Shared end of `download` (with or without `--no-install`) and `restore`: close the progress display cleanly
/// on every path, print results and pick the exit status — 0 all done, 1 a download failed, 3 interrupted
/// (Ctrl-C/SIGTERM: paused and checkpointed), 4 cancelled.
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

    /// What a run that was not interrupted did, as the person sees it.
    struct Results {
        /// Downloads that completed (the summary's file count).
        var completed: Int
        /// Bytes received in this run.
        var bytes: Int64
        /// Result lines for stdout (left out with `--json`).
        var lines: [String] = []
        /// One per failed download.
        var failures: [Problem] = []
        /// One per cancelled download.
        var cancellations: [Problem] = []
    }

    /// A download that did not finish, as the error line says it: the message, and under `--json` the code of the
    /// download's own error (`insufficientSpace`, `badChunk`, … as the daemon's `download.error` gives it).
    struct Problem {
        var message: String
        var code: String
    }

    /// Ends the queue's run: finishes the transactions of installed downloads (unless `finishTransactions` is
    /// false), closes the queue and reports; throws the ``ExitStatus`` for anything but complete success.
    func end(
        transactions: [ContentTransaction], outcome: DownloadWaiter.Outcome<ContentDownload>, queue: ContentQueue,
        finishTransactions: Bool, allDone: (Int) -> String
    ) async throws {
        // The signal handler already closed the queue.
        if interrupted.isSet { try await endInterrupted(inFlight: outcome.inFlight) }
        var results = Results(completed: 0, bytes: outcome.bytesThisRun)
        for transaction in transactions {
            guard let download = outcome.latest[transaction.id] else { continue }
            if download.state == .cancelled {
                results.cancellations.append(Problem(
                    message: "\(download.productID) cancelled; its partial data was deleted. Run the same command to download it again.",
                    code: DownloadError.Code.cancelled.rawValue))
                continue
            }
            guard download.state == .finished, let url = download.contentURL else {
                results.failures.append(Self.failure(download.productID, download.state, download.error))
                continue
            }
            if finishTransactions {
                do { try await queue.finish(transaction.id) } catch {
                    results.failures.append(Problem(
                        message: "\(download.productID): installed, but finishing transaction \(transaction.id) failed: \(error.description)",
                        code: error.errorCode))
                    continue
                }
            }
            results.completed += 1
            results.lines.append("\(download.productID): \(url.path)")
        }
        await queue.close()
        try await report(results, allDone: allDone(results.completed))
    }

    /// Ends an interrupted run: the downloads still in flight were checkpointed and stopped (the journal keeps
    /// them `waiting`, so the next run resumes them) and are shown paused; then the resume hint and exit 3.
    func endInterrupted(inFlight: [DownloadSnapshot]) async throws -> Never {
        for snapshot in inFlight {
            var row = ProgressRow(snapshot)
            row.state = DownloadState.paused.rawValue
            row.timeRemaining = -1
            await reporter.update(row)
        }
        await reporter.finish(summary: nil)
        note("Paused. Run the same command again to resume.", important: true)
        throw ExitStatus.interrupted
    }

    /// Ends a run that was not interrupted: the summary line, the result lines, every problem, then the exit
    /// status (1 before 4) or, when all went well, the `allDone` note.
    func report(_ results: Results, allDone: String) async throws {
        await reporter.finish(summary: RunSummary(files: results.completed, bytes: results.bytes, since: started))
        if !json { for line in results.lines { Output.line(line) } }
        for problem in results.failures + results.cancellations { Output.error(problem.message, code: problem.code) }
        if !results.failures.isEmpty { throw ExitStatus.failure }
        if !results.cancellations.isEmpty { throw ExitStatus.cancelled }
        note(allDone, important: false)
    }

    /// A download that ended in `state` instead of finishing: `<product> <state>[: <error>]`, with the error's
    /// code (`failure` when it reported none).
    static func failure(_ productID: String, _ state: DownloadState?, _ error: DownloadError?) -> Problem {
        Problem(
            message: "\(productID) \(state?.rawValue ?? "unknown")\(error.map { ": \($0.message)" } ?? "")",
            code: error?.code.rawValue ?? "failure")
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
