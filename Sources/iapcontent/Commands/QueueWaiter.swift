import ContentDownloads
import Foundation

/// Shared tail of `download` and `restore`: follow a queue's updates until every download of the
/// given transactions has stopped (finished = installed, failed or cancelled), showing each change
/// on a ``ProgressReporter`` — including pause, resume and cancel sent from another shell.
struct QueueWaiter {
    /// The store folder, for the resume hint.
    let store: String
    /// Where progress goes.
    let reporter: any ProgressReporter
    /// Set by Ctrl-C/SIGTERM: pauses then are ours, not another shell's, so no `resume` hint.
    let interrupted: InterruptFlag

    /// What the wait saw: the last download of each transaction (by transaction id) and the bytes
    /// received while waiting (for the summary line).
    struct Outcome {
        var latest: [String: ContentDownload]
        var bytesThisRun: Int64
    }

    /// Waits until every download of `transactions` has stopped or the queue's updates end (Ctrl-C closes it).
    func wait(for transactions: [ContentTransaction], queue: ContentQueue) async -> Outcome {
        var latest: [String: ContentDownload] = [:]
        for transaction in transactions { for download in transaction.downloads { latest[transaction.id] = download } }
        var firstBytes: [String: Int64] = [:]
        var pauseNoted: Set<String> = []
        // Downloads still in flight are shown from the stream, which holds every change in order
        // (showing their current state first would replay older states after it).
        for download in latest.values where !download.state.isInFlight {
            await reporter.update(ProgressRow(download.snapshot))
        }
        func bytes() -> Int64 {
            latest.reduce(0) { sum, entry in
                sum + max(0, entry.value.snapshot.downloadedBytes - (firstBytes[entry.key] ?? entry.value.snapshot.downloadedBytes))
            }
        }
        if latest.values.allSatisfy({ !$0.state.isInFlight }) { return Outcome(latest: latest, bytesThisRun: 0) }
        for await update in queue.updates {
            guard case .downloads(let downloads) = update else { continue }
            for download in downloads where latest[download.transactionID] != nil {
                if firstBytes[download.transactionID] == nil {
                    firstBytes[download.transactionID] = download.snapshot.downloadedBytes
                }
                latest[download.transactionID] = download
                await reporter.update(ProgressRow(download.snapshot))
                if download.state != .paused { pauseNoted.remove(download.productID) }
                if download.state == .paused, !interrupted.isSet, !pauseNoted.contains(download.productID) {
                    pauseNoted.insert(download.productID)
                    await reporter.message(
                        "\(download.productID) is paused; run `iapcontent resume \(download.productID) --store \(store)` to continue.")
                }
            }
            if latest.values.allSatisfy({ !$0.state.isInFlight }) { break }
        }
        return Outcome(latest: latest, bytesThisRun: bytes())
    }
}
