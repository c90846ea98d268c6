internal import ContentDownloads
internal import Foundation
internal import Logging

/// Loads the catalog for the products the daemon needs (installed, in the queue, being added) and gives it to the
/// queue, which announces updates it has not announced before (`update.available`): what `reloadCatalog`, an `add`
/// of a product the loaded catalog lacks, and the periodic update check do.
struct CatalogRefresh: Sendable {
    let queue: ContentQueue
    let load: @Sendable (_ productIDs: [String]) async throws -> CatalogSource
    private let logger = Logger(label: "iapcontent.daemon")

    init(queue: ContentQueue, load: @escaping @Sendable (_ productIDs: [String]) async throws -> CatalogSource) {
        self.queue = queue
        self.load = load
    }

    /// The installed products, those of the queue's transactions and `extra`, sorted, each once.
    func neededProducts(adding extra: [String]) async -> [String] {
        var products = Set(queue.store.installedProductIDs())
        for transaction in await queue.transactions() { products.insert(transaction.productID) }
        products.formUnion(extra)
        return products.sorted()
    }

    /// Loads the catalog for the needed products and `extra`, and hands it to the queue.
    @discardableResult
    func run(adding extra: [String] = []) async throws -> CatalogSource {
        let source = try await load(await neededProducts(adding: extra))
        await queue.refreshCatalog(source)
        return source
    }

    /// ``run(adding:)`` every `interval` until the task is cancelled; a refused or unreachable catalog is logged and
    /// changes nothing (the queue keeps the catalog it had).
    func periodically(every interval: Duration) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            do { try await run() } catch {
                logger.warning("daemon: the update check failed: \(error); the catalog loaded before stays in use")
            }
        }
    }
}
