import ArgumentParser
import ContentCommandLine
import ContentDaemon
import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation

extension IAPContent {
    /// `iapcontent status`: every download in a store, from its journal, with transactions and installed content.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show every download in a store: state, bytes, progress, time remaining, last error.",
            discussion: HelpText.status)

        @OptionGroup var storeOptions: StoreLocationOptions

        @OptionGroup var catalogOptions: CatalogOptions

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array, one object per product (shape in the discussion above).")
        var json = false

        func run() async throws {
            global.bootstrapLogging()
            let location = storeOptions.location
            guard Store.hasJournal(atRoot: location.url) else {
                Output.error("no downloads in \(location.url.path) (no journal.sqlite); start one with `iapcontent download`", code: "noJournal")
                throw ExitStatus.failure
            }
            let store = try storeOptions.openStore()
            let overview = try StoreOverview(store: store)
            // A running daemon knows more than its last checkpoint: its live bytes, progress and time remaining.
            let snapshots = (try? DaemonClient.running(for: store)?.live(overview.downloads)) ?? overview.downloads
            var installed: [String: String] = [:], packs: [String: [PackStatus]] = [:]
            for id in store.installedProductIDs() {
                installed[id] = store.installedVersion(forProductID: id)?.description ?? "?"
                // Only a product installed with packs has a selection record: no other manifest is decoded here.
                if store.installedSelection(productID: id) != nil, let list = try? store.packStatus(productID: id) { packs[id] = list }
            }
            var updates: [String: ContentUpdate] = [:]
            // The catalog is optional here, only for "update available"; read as-is (status writes nothing,
            // not even the trust path's catalog-version memory; download verifies before installing).
            if let catalog = try? catalogOptions.catalog() {
                do {
                    let source = try CatalogSource.load(catalog)
                    for update in await ContentQueue.measuredUpdates(store: store, catalog: source, transport: TransferSettings()) {
                        updates[update.productID] = update
                    }
                } catch {
                    Output.failure(error)
                }
            }
            if json {
                let entries = StatusReport.entries(snapshots: snapshots, overview: overview, installed: installed, updates: updates, packs: packs)
                Output.line(try JSONText.encode(entries, pretty: true))
                return
            }
            if snapshots.isEmpty {
                Output.line("No downloads in \(store.root.path).")
            } else {
                var writer = PlainProgressWriter()
                let now = ContinuousClock.now
                for snapshot in snapshots {
                    if let line = writer.line(for: ProgressRow(snapshot), at: now) { Output.line(line) }
                }
            }
            for transaction in overview.transactions {
                Output.line("transaction \(transaction.id): \(transaction.productID) \(transaction.kind.rawValue), \(transaction.state.rawValue) (unfinished)")
            }
            for entry in overview.history {
                Output.line("transaction \(entry.transactionID): \(entry.productID) \(entry.kind.rawValue) \(entry.contentVersion), finished")
            }
            for (id, version) in installed.sorted(by: { $0.key < $1.key }) {
                var line = "installed \(id) \(version)"
                if let update = updates[id] { line += ", update available: " + UpdateLine.describe(update) }
                Output.line(line)
                for pack in packs[id] ?? [] {
                    let state = pack.installed ? "installed, \(Formatting.bytes(pack.bytes))" : "not installed, fetches at most \(Formatting.bytes(pack.bytesToFetch))"
                    Output.line("  pack \(pack.id) (\(pack.policy.rawValue)): \(state)")
                }
            }
        }
    }
}
