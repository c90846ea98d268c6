internal import SystemSupport
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Crypto

extension ContentQueue {
    /// ``availableUpdates()`` with the bytes each update fetches (``ContentUpdate/downloadBytes``): the new
    /// manifest is fetched from the catalog's mirrors and compared with the installed version's, and the
    /// installed files are checked as an update would (their modification times, hashed when in doubt). Each
    /// manifest fetched and checked against the signed catalog is kept in the store, so the update that follows
    /// (`restore` measures, then updates) plans from it instead of fetching it again.
    public func measuredUpdates() async -> [ContentUpdate] {
        guard let catalog else { return [] }
        return await Self.measuredUpdates(store: store, catalog: catalog, transport: await manager.options.transfer, keeping: true)
    }

    /// ``measuredUpdates()`` for a store and catalog without a queue (what `iapcontent status` shows); writes
    /// nothing to the store.
    public nonisolated static func measuredUpdates(store: Store, catalog: CatalogSource, transport: TransferSettings) async -> [ContentUpdate] {
        await measuredUpdates(store: store, catalog: catalog, transport: transport, keeping: false)
    }

    /// ``measuredUpdates(store:catalog:transport:)``, keeping each checked manifest in the store when `keeping`.
    private nonisolated static func measuredUpdates(
        store: Store, catalog: CatalogSource, transport: TransferSettings, keeping: Bool
    ) async -> [ContentUpdate] {
        var updates = availableUpdates(store: store, catalog: catalog.catalog)
        for index in updates.indices {
            guard let product = catalog.catalog.product(updates[index].productID) else { continue }
            updates[index].downloadBytes = await updateBytes(product, store: store, catalog: catalog, transport: transport, keeping: keeping)
        }
        return updates
    }

    /// The bytes an update to `product` fetches from what is installed now: the precomputed patch from the installed
    /// version when the catalog offers one (``PatchFetch``), else the chunks and the manifest. The new manifest is decoded first and
    /// the installed one beside it, sharing its equal paths, as an update plans; with `keeping`, the checked
    /// manifest is kept where the update's plan looks for it (``ManifestFetch/keep(_:)`` checks it again there).
    private nonisolated static func updateBytes(
        _ product: CatalogProduct, store: Store, catalog: CatalogSource, transport: TransferSettings, keeping: Bool
    ) async -> Int64 {
        guard let reference = product.manifest, let content = store.contentURL(forProductID: product.productID),
              FileManager.default.fileExists(atPath: store.installedManifestFile(productID: product.productID).path)
        else { return product.length }
        guard reference.length <= PackageManifest.largestCompactManifest else { return product.length }
        // A precomputed patch from the installed manifest is what the update fetches, when its files are intact.
        if let (patch, _) = PatchFetch.offered(for: product, in: store), PatchFetch.isWorthFetching(patch, for: product) {
            return patch.length
        }
        for url in ManifestFetch.manifestURLs(reference, catalog: catalog) {
            guard let data = try? await ManifestFetch.fetch(url, transport: transport, length: reference.length), Int64(data.count) == reference.length,
                  SHA256.hash(data: data).lowercaseHex == reference.sha256.lowercased(), let manifest = try? PackageManifest.decode(data)
            else { continue }
            if keeping, let reference = product.manifest {
                try? store.keepManifest(data, of: product, reference: reference, from: url.absoluteString)
            }
            guard let (installed, seal) = store.installedManifest(productID: product.productID, sharingPathsWith: manifest.files),
                  installed.chunks != nil
            else { return product.length }
            let selection = manifest.packs == nil ? nil : store.installedSelection(productID: product.productID)
            let size = try? await BlockingCall.run(thread: "iap-measure") { () throws(InstallError) -> Int64 in
                var package = try ChunkedPackage(
                    manifest: manifest, expectedLength: product.length, expectedSHA256: product.sha256, display: url.absoluteString)
                // What the update installs: the installed packs and variants only, as it plans them.
                if let selection { try package.select(selection, display: url.absoluteString) }
                let folder = try InstalledFolder(path: content.path, seal: seal)
                let installedChunks = InstalledChunks(manifest: installed)
                let draft = PlanDraft.make(package: package, installed: installedChunks) { file in
                    folder.holds(file, at: file.path)
                }
                return draft.fetchBytes(in: package) + reference.length
            }
            return size ?? product.length
        }
        return product.length
    }
}
