import ContentDelivery
import ContentDownloads
import Foundation

/// The launcher: restore what the customer is entitled to, show progress, mount what is installed.
///
/// 1. Open the store, load the signed catalog (pinned key), and hand the queue a source for the signed
///    entitlements document: `open()` then reconciles — entitled content that is missing or outdated is delivered
///    as `restored` transactions (no purchase call), revoked or expired content is removed.
/// 2. Follow `updates` for progress lines, and wait for each entitled product with `installed(productID:)`.
/// 3. Mount each installed product, finish its transaction, and exit (`--once`) or wait for SIGTERM.
@main
struct Launcher {
    static func main() async {
        do {
            try await run(LauncherOptions.parse(CommandLine.arguments))
        } catch {
            FileHandle.standardError.write(Data("launcher: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: LauncherOptions) async throws {
        let store = try Store(root: URL(fileURLWithPath: options.store))
        let catalog = try await CatalogSource.loadVerified(
            options.catalog, pinnedPublicKeys: [options.publicKey], store: store, transport: TransferSettings())
        var downloadOptions = DownloadOptions()
        downloadOptions.maxBytesPerSecond = options.maxRate
        let queue = try ContentQueue(store: store, catalog: catalog, options: downloadOptions)
        let entitlements = store.signedEntitlements(at: options.entitlements, pinnedPublicKeys: [options.publicKey])
        await queue.setEntitlementSource(entitlements)
        let progress = Task { await ProgressLines.follow(queue.updates) }

        try await queue.open()  // recovers a crashed run, then reconciles with the entitlements
        let mounts = Mounts(folder: URL(fileURLWithPath: options.mounts))
        let entitled = try await entitlements.entitlements()
        for productID in entitled.withdrawnProductIDs {
            mounts.unmount(productID)
            say("withdrawn: \(productID)")
        }
        for productID in entitled.activeProductIDs where catalog.catalog.product(productID) != nil {
            let content = try await queue.installed(productID: productID)
            try mounts.mount(productID, at: content)
            say("mounted: \(productID) -> \(content.path)")
        }
        for transaction in await queue.transactions() where transaction.downloads.allSatisfy({ $0.state == .finished }) {
            try await queue.finish(transaction.id)
        }
        if !options.once { await waitForTermination() }
        await queue.close()
        progress.cancel()
    }

    /// Returns on SIGTERM or SIGINT.
    static func waitForTermination() async {
        let signals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.resume()
            return source
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = OnceFlag()
            for source in signals { source.setEventHandler { if once.take() { continuation.resume() } } }
        }
    }
}
