import ArgumentParser
import ContentCommandLine
import ContentDelivery
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent download`: fetch and verify products' archives into a store, resumably.
    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Download, verify and install products' content into a store (resumable), then finish their transactions.",
            discussion: HelpText.download)

        @Argument(help: "Product identifiers to download.")
        var productIDs: [String]

        @OptionGroup var catalogOptions: CatalogOptions

        @Option(name: .customLong("token-key"), help: "Development: a URL token key file; archive URLs get fresh tokens minted locally.")
        var tokenKey: String?

        @OptionGroup var storeOptions: StoreLocationOptions

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Progress as JSON lines (the keys of `status --json` plus \"event\"); nothing else on stdout.")
        var json = false

        @OptionGroup var transfer: TransferOptions

        @Flag(name: .customLong("no-finish"), help: "Leave the transactions unfinished (for inspection with `status`).")
        var noFinish = false

        @Flag(name: .customLong("no-install"), help: "Only fetch and verify the archives into the store's transfers/ (no transaction, no install).")
        var noInstall = false

        @Flag(name: .customLong("verify-first"), help: "Extract only after the whole archive's SHA-256 matched (no unverified byte reaches libarchive; slower: no extraction while downloading).")
        var verifyFirst = false

        func run() async throws {
            global.bootstrapLogging()
            let catalog = try catalogOptions.catalog()
            let keys = catalogOptions.publicKeys()
            if keys.isEmpty, catalogOptions.trustedRoot() == nil {
                Output.warning("no --public-key pinned; accepting an unsigned catalog (development only — anyone controlling the server controls the content)")
            }
            let store = try storeOptions.openStore()
            let (source, products) = try exitingOnDownloadError { () throws(DownloadError) in
                let source = try transfer.loadCatalog(catalog, catalogOptions, products: productIDs, store: store)
                var products: [CatalogProduct] = []
                for id in productIDs { products.append(try source.product(id)) }
                for product in products { try store.checkNoDowngrade(product) }
                return (source, products)
            }
            let authorizer = try archiveURLAuthorizer()
            let options = transfer.downloadOptions()
            if noInstall {
                try await fetchOnly(store: store, source: source, products: products, options: options, authorizer: authorizer)
                return
            }
            let queue = try ContentQueue(
                store: store, catalog: source, options: options,
                installOptions: ContentInstaller.Options(overlapWithDownload: !verifyFirst, deferDeletion: true))
            await queue.setArchiveURLAuthorizer(authorizer)
            try await QueueRun(queue: queue, json: json, quiet: global.quiet).run(
                finishTransactions: !noFinish, transactions: { try await Self.addTransactions(for: products, to: $0) }
            ) { count in
                noFinish
                    ? "All \(count) product(s) installed; transactions left unfinished (--no-finish)."
                    : "All \(count) product(s) installed and their transactions finished."
            }
        }

        /// `--token-key`: archive URLs get tokens minted locally with that key; nil without the flag. An
        /// unreadable key is a message and exit status 1.
        private func archiveURLAuthorizer() throws -> ArchiveURLAuthorizer? {
            guard let tokenKey else { return nil }
            do {
                return URLTokenSigner(key: try URLTokenKey.read(from: URL(fileURLWithPath: tokenKey))).authorizer()
            } catch {
                Output.error("cannot read the token key \(tokenKey): \(error)")
                throw ExitStatus.failure
            }
        }

        /// One transaction per product version; a rerun reattaches to it (and retries a failed or cancelled
        /// download).
        private static func addTransactions(
            for products: [CatalogProduct], to queue: ContentQueue
        ) async throws -> [ContentTransaction] {
            var transactions: [ContentTransaction] = []
            for product in products {
                let id = "cli-\(product.productID)-\(product.contentVersion)"
                var transaction = try await queue.add(VerifiedPurchase(transactionID: id, productID: product.productID))
                for download in transaction.downloads where download.state == .failed || download.state == .cancelled {
                    try await queue.start(download)
                }
                transaction = await queue.transaction(id: id) ?? transaction
                transactions.append(transaction)
            }
            return transactions
        }
    }
}
