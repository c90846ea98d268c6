internal import ContentDelivery
internal import Synchronization

/// The download queue's overlapped installs, one per product at most: which catalog products may
/// be installed while they download, and the extraction following each running transfer.
///
/// Shared between the download manager (which asks for a feed each time it hands a request to the
/// transfer engine) and the queue (which takes the extraction when the archive is verified). Both
/// are actors on different executors, so the map lives behind one `Mutex`, touched only here.
final class OverlappedInstalls: Sendable {
    private struct State {
        var products: [String: CatalogProduct] = [:]
        var running: [String: OverlappedInstall] = [:]
    }

    private let state = Mutex(State())
    private let store: Store
    private let options: InstallSettings

    /// Installs into `store` with the queue's install options (space preflight, phase observer).
    init(store: Store, options: InstallSettings) {
        self.store = store
        self.options = options
    }

    /// `product` may be extracted while it downloads (the queue knows its sizes and caps).
    func register(_ product: CatalogProduct) {
        state.withLock { $0.products[product.productID] = product }
    }

    /// The feed for a transfer attempt: starts an extraction that follows it, replacing any
    /// earlier one for the product. `nil` when the product is unknown or its archive differs.
    /// A chunk-indexed transfer installs by itself and gets none.
    func feed(for attempt: ArchiveAttempt) -> GrowingArchive? {
        guard !attempt.chunked else { return nil }
        let replaced: OverlappedInstall?
        let started: OverlappedInstall?
        (replaced, started) = state.withLock { state in
            guard let product = state.products[attempt.productID], product.sha256.lowercased() == attempt.expectedSHA256.lowercased()
            else { return (nil, nil) }
            let install = OverlappedInstall(
                product: product, store: store, partialPath: attempt.partialPath, archivePath: attempt.archivePath,
                options: options)
            let previous = state.running.updateValue(install, forKey: attempt.productID)
            return (previous, install)
        }
        replaced?.discard()
        return started?.feed
    }

    /// Hands over the extraction of this exact archive, if one ran.
    func take(productID: String, sha256: String) -> OverlappedInstall? {
        state.withLock { state in
            guard let install = state.running[productID],
                  install.product.sha256.lowercased() == sha256.lowercased()
            else { return nil }
            state.running[productID] = nil
            return install
        }
    }

    /// Stops every extraction and deletes what they staged (the queue is closing).
    func discardAll() {
        let all = state.withLock { state in
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for install in all { install.discard() }
    }
}
