import ArgumentParser
import ContentCommandLine
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent restore`: re-deliver finished purchases whose content is missing or outdated.
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restore: download and install content of previously finished purchases that is missing or older than the catalog's.",
            discussion: HelpText.restore)

        @OptionGroup var catalogOptions: CatalogOptions

        @OptionGroup var storeOptions: StoreLocationOptions

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Progress as JSON lines (the keys of `status --json` plus \"event\"); nothing else on stdout.")
        var json = false

        @OptionGroup var transfer: TransferOptions

        func run() async throws {
            global.bootstrapLogging()
            let catalog = try catalogOptions.catalog()
            let store = try storeOptions.openStore()
            let source: CatalogSource
            do {
                source = try transfer.loadCatalog(catalog, publicKeys: catalogOptions.publicKeys(), store: store)
            } catch {
                Output.error(error.message)
                throw ExitStatus.failure
            }
            let queue = try ContentQueue(
                store: store, catalog: source, options: transfer.downloadOptions(),
                installOptions: ContentInstaller.Options(deferDeletion: true))
            try await openForRun(queue)
            defer { TrashEmptier.startIfNeeded(store: store) }  // as `download` does
            let started = ContinuousClock.now
            let reporter = ProgressReporters.make(json: json, quiet: global.quiet)
            let interrupted = InterruptFlag()
            let signals = interrupted.trapTerminationSignals { Task { await queue.close() } }
            defer { signals.forEach { $0.cancel() } }
            let ending = RunEnding(json: json, quiet: global.quiet, reporter: reporter, interrupted: interrupted, started: started)
            let restored: [ContentTransaction]
            do { restored = try await queue.restoreCompletedTransactions() } catch {
                await reporter.finish(summary: nil)
                await queue.close()
                throw error
            }
            if restored.isEmpty {
                await reporter.finish(summary: nil)
                await queue.close()
                ending.note("Nothing to restore: every purchased product is installed at the catalog's version.", important: false)
                return
            }
            let waiter = DownloadWaiter(store: store.root.path, reporter: reporter, interrupted: interrupted)
            let outcome = await waiter.wait(for: restored, queue: queue)
            try await ending.end(transactions: restored, outcome: outcome, queue: queue, finishTransactions: true) { count in
                "Restored \(count) product(s)."
            }
        }
    }
}
