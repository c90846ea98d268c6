internal import SystemSupport
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging

extension ContentQueue {
    /// Prepares an update of `product` that fetches only what changed, when the installed version was
    /// installed from a chunk-indexed archive (its manifest is kept) and the new version's manifest is in the
    /// store: builds the new tree from the installed files and keeps the plan. Returns the plan (kept earlier
    /// or made now), or `nil` — then the archive is downloaded in full, and a log line says why.
    ///
    /// A download of this version already under way with bytes fetched is left to finish as it is. A repair
    /// (the same version) names the installed files it found `damaged`: they are never linked or read.
    func prepareUpdate(_ product: CatalogProduct, distrusting damaged: Set<String> = []) async -> DeltaPlan? {
        if let running = updatePreparations[product.productID] { _ = await running.value }
        let task = Task { await self.buildUpdate(product, distrusting: damaged) }
        updatePreparations[product.productID] = task
        let plan = await task.value
        if updatePreparations[product.productID] == task { updatePreparations[product.productID] = nil }
        return plan
    }

    /// ``prepareUpdate(_:distrusting:)`` itself, one at a time per product.
    private func buildUpdate(_ product: CatalogProduct, distrusting damaged: Set<String>) async -> DeltaPlan? {
        let id = product.productID, version = product.contentVersion.description
        let tree = store.updateTreeDirectory(productID: id, version: version).path
        if let existing = await manager.snapshot(of: id), existing.contentVersion == version, existing.downloadedBytes > 0,
           existing.expectedContentLength == product.length, [.waiting, .active, .paused, .failed].contains(existing.state)
        {
            return nil
        }
        if let plan = DeltaPlan.load(treePath: tree), plan.contentVersion == version, plan.archiveLength == product.length,
           FileManager.default.fileExists(atPath: tree)
        {
            return plan
        }
        guard let target = store.chunkedTarget(productID: id, version: version), let content = store.contentURL(forProductID: id) else { return nil }
        let metadata: Logger.Metadata = ["product": "\(id)", "version": "\(version)"]
        guard let (installed, seal) = store.installedManifest(productID: id), installed.chunks != nil else {
            DownloadLog.transfer.notice(
                "the installed version has no chunk-indexed manifest in the store; downloading the whole archive", metadata: metadata)
            return nil
        }
        await manager.forgetProgress(id, version: version)  // a stopped attempt's bytes belonged to the tree about to be built anew
        do {
            let plan = try await BlockingCall.run(thread: "iap-update") { () throws(InstallError) -> DeltaPlan in
                let manifest: PackageManifest
                do { manifest = try PackageManifest.decode(try Data(contentsOf: URL(fileURLWithPath: target.manifestPath))) } catch {
                    throw .archiveMismatch(path: target.manifestPath, reason: "cannot be read: \(error)")
                }
                let package = try ChunkedPackage(
                    manifest: manifest, expectedLength: product.length, expectedSHA256: product.sha256, display: target.manifestPath)
                return try DeltaPreparation(
                    package: package, installed: InstalledChunks(manifest: installed),
                    folder: try InstalledFolder(path: content.path, seal: seal, distrusted: damaged), treePath: tree,
                    archiveLength: product.length
                ).run()
            }
            DownloadLog.transfer.notice(
                "update: fetching only what changed", metadata: metadata.merging([
                    "linked": "\(plan.linkedFiles) files", "rebuilt": "\(plan.rebuiltChunks) chunks (\(plan.rebuiltBytes) bytes)",
                    "fetch": "\(plan.fetch.count) chunks (\(plan.fetchBytes) of \(product.length) bytes)",
                ]) { $1 })
            return plan
        } catch {
            store.discardUpdate(productID: id, version: version)
            DownloadLog.transfer.notice(
                "cannot build the update from the installed version; downloading the whole archive",
                metadata: metadata.merging(["reason": "\(error)"]) { $1 })
            return nil
        }
    }
}
