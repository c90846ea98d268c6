internal import Logging
public import ContentDelivery
public import ContentPackaging
public import Foundation

extension ContentQueue {
    // MARK: Content

    /// The installed folder of a product (`ContentInfo.plist` + `Contents/`), or `nil`.
    public nonisolated func contentURL(forProductID productID: String) -> URL? {
        store.contentURL(forProductID: productID)
    }

    /// The installed version of a product, or `nil`.
    public nonisolated func installedVersion(forProductID productID: String) -> ContentVersion? {
        store.installedVersion(forProductID: productID)
    }

    /// Deletes a product's installed content (atomically); `false` when nothing was installed. Listeners of
    /// ``updates`` and the observer are told with ``ContentQueueUpdate/contentRemoved(_:)``.
    @discardableResult
    public func deleteContent(forProductID productID: String) async throws(InstallError) -> Bool {
        guard try store.deleteContent(forProductID: productID) else { return false }
        await deliver(.contentRemoved([productID]))
        return true
    }

    /// Installed products whose catalog version is newer (StoreKit: the update a new download brings).
    public func availableUpdates() -> [ContentUpdate] {
        guard let catalog else { return [] }
        return ContentQueue.availableUpdates(store: store, catalog: catalog.catalog)
    }

    /// Replaces the catalog (as ``setCatalog(_:)``) and announces, with ``ContentQueueUpdate/updatesAvailable(_:)``,
    /// every installed product it offers a version no catalog given this queue offered before; returns those
    /// updates. A periodic update check calls it with each catalog it loads: an update is announced once.
    @discardableResult
    public func refreshCatalog(_ catalog: CatalogSource) async -> [ContentUpdate] {
        setCatalog(catalog)
        let fresh = availableUpdates().filter { announcedUpdates.insert("\($0.productID) \($0.catalogVersion)").inserted }
        if !fresh.isEmpty { await deliver(.updatesAvailable(fresh)) }
        return fresh
    }

    /// Whether the queue's catalog lists `productID` (a catalog loaded for some products only, from a TUF
    /// repository, may not).
    public func catalogLists(_ productID: String) -> Bool { catalog?.catalog.product(productID) != nil }

    /// Installed products of `store` with a newer version in `catalog`.
    public nonisolated static func availableUpdates(store: Store, catalog: Catalog) -> [ContentUpdate] {
        store.installedProductIDs().compactMap { id in
            guard let installed = store.installedVersion(forProductID: id), let product = catalog.product(id),
                  installed < product.contentVersion
            else { return nil }
            return ContentUpdate(
                productID: id, installedVersion: installed, catalogVersion: product.contentVersion, archiveBytes: product.length)
        }
    }

    /// Restore: for each product in the history whose content is missing or older than the
    /// catalog's version, adds a `restore` transaction whose download fetches it. Returns them.
    @discardableResult
    public func restoreCompletedTransactions() async throws -> [ContentTransaction] {
        var seen = Set(rows.values.map(\.productID))
        var restored: [ContentTransaction] = []
        for entry in try journal.historyRows() where !seen.contains(entry.productID) {
            seen.insert(entry.productID)
            guard let product = catalog?.catalog.product(entry.productID) else { continue }
            if let installed = store.installedVersion(forProductID: entry.productID), installed >= product.contentVersion {
                continue
            }
            let id = "restore-\(entry.productID)-\(product.contentVersion)-\(UUID().uuidString.prefix(8))"
            restored.append(try await add(VerifiedPurchase(transactionID: id, productID: entry.productID, kind: .restore)))
        }
        return restored
    }

    /// Product identifiers of finished transactions (the history restore uses).
    public func historyProductIDs() throws -> [String] {
        var seen = Set<String>()
        return try journal.historyRows().map(\.productID).filter { seen.insert($0).inserted }
    }
}
