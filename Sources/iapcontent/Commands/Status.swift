import ArgumentParser
import ContentDownloads
import ContentPackaging
import Foundation

extension IAPContent {
    /// `iapcontent status`: every download in a store, from its journal.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show every download in a store: state, bytes, progress, time remaining, last error.")

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print JSON (keys: productID, contentVersion, state, downloadedBytes, expectedContentLength, progress, timeRemaining, error).")
        var json = false

        @Option(help: "A catalog (URL or path) to compare installed versions with (shows \"update available\").")
        var catalog: String?

        func run() async throws {
            let layout = storeOptions.layout
            guard FileManager.default.fileExists(atPath: layout.journal.path) else {
                printError("no downloads in \(layout.root.path) (no journal.sqlite); start one with `iapcontent download`")
                throw ExitCode(1)
            }
            let snapshots = try layout.openJournal().records().map(DownloadSnapshot.init(record:))
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                printLine(String(decoding: try encoder.encode(snapshots), as: UTF8.self))
            } else if snapshots.isEmpty {
                printLine("No downloads in \(layout.root.path).")
            } else {
                for snapshot in snapshots { printLine(ProgressPrinter.line(snapshot)) }
            }
            if !json { try printTransactions(layout) }
        }

        /// Unfinished transactions, finished ones (history) and installed content with updates.
        private func printTransactions(_ layout: StoreLayout) throws {
            let overview = try StoreOverview(layout: layout)
            for transaction in overview.transactions {
                printLine("transaction \(transaction.id): \(transaction.productID) \(transaction.kind.rawValue), \(transaction.state.rawValue) (unfinished)")
            }
            for entry in overview.history {
                printLine("transaction \(entry.transactionID): \(entry.productID) \(entry.kind.rawValue) \(entry.contentVersion), finished")
            }
            let store = try ContentStore(root: layout.root)
            var updates: [String: ContentUpdate] = [:]
            if let catalog {
                do {
                    let source = try CatalogSource.load(catalog)
                    for update in ContentQueue.availableUpdates(store: store, catalog: source.catalog) { updates[update.productID] = update }
                } catch {
                    printError(error.message)
                }
            }
            for id in store.installedProductIDs() {
                let version = store.installedVersion(forProductID: id)?.description ?? "?"
                var line = "installed \(id) \(version)"
                if let update = updates[id] { line += ", update available: \(update.catalogVersion)" }
                printLine(line)
            }
        }
    }
}
