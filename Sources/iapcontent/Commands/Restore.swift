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
            let source = try exitingOnDownloadError { () throws(DownloadError) in
                try transfer.loadCatalog(catalog, publicKeys: catalogOptions.publicKeys(), store: store)
            }
            let queue = try ContentQueue(
                store: store, catalog: source, options: transfer.downloadOptions(),
                installOptions: ContentInstaller.Options(deferDeletion: true))
            try await QueueRun(queue: queue, json: json, quiet: global.quiet).run(
                finishTransactions: true,
                nothingToDo: "Nothing to restore: every purchased product is installed at the catalog's version.",
                transactions: { try await $0.restoreCompletedTransactions() }
            ) { count in
                "Restored \(count) product(s)."
            }
        }
    }
}
