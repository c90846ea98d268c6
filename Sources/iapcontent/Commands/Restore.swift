import ArgumentParser
import ContentCommandLine
import ContentDelivery
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent restore`: re-deliver finished purchases whose content is missing or outdated.
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Restore: download and install content of previously finished purchases that is missing or older than the catalog's.",
            discussion: HelpText.restore)

        @OptionGroup var catalogOptions: CatalogOptions

        @OptionGroup var storeOptions: StoreLocationOptions

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Progress as JSON lines (the keys of `status --json` plus \"event\"); nothing else on stdout.")
        var json = false

        @OptionGroup var transfer: TransferOptions

        @Option(help: ArgumentHelp(
            "Signed entitlements document (URL or path): restore its active products, remove revoked and expired ones.",
            valueName: "url"))
        var entitlements: String?

        func run() async throws {
            global.bootstrapLogging()
            let catalog = try catalogOptions.catalog()
            let store = try storeOptions.openStore()
            // A repository serves the bins of the products asked for, so the entitled ones are read first and asked
            // for too (those it no longer lists are left out); a catalog.json lists every product anyway.
            var entitled: Entitlements?
            if let entitlements, catalogOptions.trustedRoot() != nil {
                entitled = try await verifiedEntitlements(entitlements, store: store, publicKeys: catalogOptions.publicKeys())
            }
            let source = try transfer.verifiedCatalog(
                catalog, catalogOptions, products: store.installedProductIDs(), ifPresent: entitled?.activeProductIDs ?? [], store: store)
            let queue = try ContentQueue(
                store: store, catalog: source, options: transfer.downloadOptions(),
                installOptions: ContentInstaller.Options(deferDeletion: true))
            for update in await queue.measuredUpdates() where !global.quiet {
                let line = "update \(update.productID) \(update.installedVersion) → " + UpdateLine.describe(update)
                if json { Output.note(line) } else { Output.line(line) }  // stdout stays JSON lines only
            }
            try await QueueRun(queue: queue, json: json, quiet: global.quiet).run(
                finishTransactions: true,
                nothingToDo: "Nothing to restore: every purchased product is installed at the catalog's version.",
                transactions: { queue in
                    guard let entitlements else { return try await queue.restoreCompletedTransactions() }
                    return try await reconcile(
                        queue, entitlements: entitlements, publicKeys: catalogOptions.publicKeys(), verified: entitled)
                }
            ) { count in
                "Restored \(count) product(s)."
            }
        }
    }
}

extension IAPContent.Restore {
    /// Proactive restore: reconciles the store with the signed entitlements document, prints each removal
    /// (on stderr with `--json`) and returns the restored transactions. A refused document is its message
    /// and exit status 1. `verified`: the document, when it was read already.
    func reconcile(
        _ queue: ContentQueue, entitlements: String, publicKeys: [String], verified: Entitlements?
    ) async throws -> [ContentTransaction] {
        let source: any EntitlementSource = verified.map(VerifiedEntitlements.init) ?? queue.store.signedEntitlements(
            at: entitlements, pinnedPublicKeys: publicKeys, transport: transfer.downloadOptions().transfer)
        await queue.setEntitlementSource(source)
        do {
            let outcome = try await queue.reconcileEntitlements()
            for productID in outcome.removed {
                let line = "\(productID): removed (entitlement revoked or expired)"
                if json { Output.note(line) } else { Output.line(line) }  // stdout stays JSON lines only
            }
            return outcome.restored
        } catch let error as DownloadError {
            Output.failure(error)
            throw ExitStatus.failure
        }
    }
}

extension IAPContent.Restore {
    /// The entitlements document at `location`, fetched and verified (signature, subject, expiry, rollback); a
    /// refused document is its message and exit status 1.
    func verifiedEntitlements(_ location: String, store: Store, publicKeys: [String]) async throws -> Entitlements {
        let source = store.signedEntitlements(at: location, pinnedPublicKeys: publicKeys, transport: transfer.downloadOptions().transfer)
        do { return try await source.entitlements() } catch let error as DownloadError {
            Output.failure(error)
            throw ExitStatus.failure
        }
    }
}

/// An entitlements document read and verified already, handed to the queue so it is not fetched twice.
struct VerifiedEntitlements: EntitlementSource {
    let document: Entitlements

    func entitlements() async throws -> Entitlements { document }
}
