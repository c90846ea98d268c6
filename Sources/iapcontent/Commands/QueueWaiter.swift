import ContentDownloads
import Foundation

/// Shared tail of `download` and `restore`: follow a queue's updates until every download of the
/// given transactions has stopped (finished = installed, failed or cancelled), printing progress.
struct QueueWaiter {
    let store: String

    /// The last download of each transaction, by transaction id.
    func wait(for transactions: [ContentTransaction], queue: ContentQueue) async -> [String: ContentDownload] {
        var latest: [String: ContentDownload] = [:]
        for transaction in transactions { for download in transaction.downloads { latest[transaction.id] = download } }
        let printer = ProgressPrinter()
        // Downloads still in flight are printed from the stream, which holds every change in order
        // (printing their current state first would replay older states after it).
        for download in latest.values where !download.state.isInFlight { printer.show(download.snapshot) }
        if latest.values.allSatisfy({ !$0.state.isInFlight }) { return latest }
        for await update in queue.updates {
            guard case .downloads(let downloads) = update else { continue }
            for download in downloads where latest[download.transactionID] != nil {
                latest[download.transactionID] = download
                printer.show(download.snapshot)
                if download.state == .paused, latest.values.allSatisfy({ $0.state == .paused || !$0.state.isInFlight }) {
                    printLine("\(download.productID) is paused; run `iapcontent resume \(download.productID) --store \(store)` to continue.")
                }
            }
            if latest.values.allSatisfy({ !$0.state.isInFlight }) { break }
        }
        return latest
    }
}
