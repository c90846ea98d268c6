import ArgumentParser
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent restore`: re-deliver finished purchases whose content is missing or outdated.
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restore: download and install content of previously finished purchases that is missing or older than the catalog's.",
            discussion: "Prints `<productID>: <content folder>` per restored product. Exit 0 when all restored (or nothing to do), 1 on failure.")

        @Option(help: "The catalog: an http(s) URL or a file path.")
        var catalog: String

        @OptionGroup var storeOptions: StoreOptions

        @Option(name: .customLong("ca-file"), help: "A PEM file of extra trusted certificate authorities.")
        var caFile: String?

        @Option(name: .customLong("public-key"), help: "Pinned Ed25519 public key (base64, from `iapcontent keygen`); repeatable. When given, the catalog must carry a valid catalog.json.sig, be unexpired and not older than the newest this store accepted.")
        var publicKeys: [String] = []

        func run() async throws {
            let source: CatalogSource
            do { source = try loadCatalog(catalog, caFile: caFile, publicKeys: publicKeys, layout: storeOptions.layout) } catch {
                printError(error.message)
                throw ExitCode(1)
            }
            var options = DownloadOptions()
            options.transfer.caFile = caFile
            let queue = try ContentQueue(layout: storeOptions.layout, catalog: source, options: options)
            do { try await queue.open() } catch let error as DriverLockError {
                printError(error.description)
                throw ExitCode(1)
            }
            let restored = try await queue.restoreCompletedTransactions()
            if restored.isEmpty {
                await queue.close()
                printLine("Nothing to restore: every purchased product is installed at the catalog's version.")
                return
            }
            let latest = await QueueWaiter(store: storeOptions.store).wait(for: restored, queue: queue)
            var failed = false
            for transaction in restored {
                guard let download = latest[transaction.id], download.state == .finished, let url = download.contentURL else {
                    let download = latest[transaction.id]
                    printError("\(transaction.productID) \(download?.state.rawValue ?? "unknown")\(download?.error.map { ": \($0.message)" } ?? "")")
                    failed = true
                    continue
                }
                try await queue.finish(transaction.id)
                printLine("\(transaction.productID): \(url.path)")
            }
            await queue.close()
            if failed { throw ExitCode(1) }
        }
    }
}
