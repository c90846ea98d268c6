internal import SystemSupport
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging

/// What planning a chunk-indexed download gave.
enum PlanOutcome: Sendable {
    /// The plan, kept beside its tree: the download fetches its chunks.
    case planned(DeltaPlan)
    /// No manifest in the store (one-frame archive, or unreachable): the archive is downloaded whole.
    case wholeArchive
    /// The manifest was read and refused, or the tree cannot be built: the download fails with this error;
    /// the manifest and the tree are deleted, the installed version is untouched.
    case refused(DownloadError)
}

extension ContentQueue {
    /// Plans the download of `product` whose manifest the store keeps: an update from the installed version when
    /// it was installed from a chunk-indexed archive (unchanged files linked, chunks rebuilt from the installed
    /// files, the rest fetched), else an install from nothing (every chunk fetched). Either way the manifest is
    /// checked completely first — its product and version against the catalog's, every path, folder, offset,
    /// size and count, the chunk index, the free space — before any archive byte is requested.
    ///
    /// A repair (the same version) names the installed files it found `damaged`: they are never linked or read.
    func prepareUpdate(_ product: CatalogProduct, distrusting damaged: Set<String> = []) async -> PlanOutcome {
        if let running = updatePreparations[product.productID] { _ = await running.value }
        let task = Task { await self.buildPlan(product, distrusting: damaged) }
        updatePreparations[product.productID] = task
        let outcome = await task.value
        if updatePreparations[product.productID] == task { updatePreparations[product.productID] = nil }
        return outcome
    }

    /// ``prepareUpdate(_:distrusting:)`` itself, one at a time per product.
    private func buildPlan(_ product: CatalogProduct, distrusting damaged: Set<String>) async -> PlanOutcome {
        let id = product.productID, version = product.contentVersion.description
        let tree = store.updateTreeDirectory(productID: id, version: version).path
        if let plan = DeltaPlan.load(treePath: tree), plan.contentVersion == version, plan.archiveLength == product.length,
           FileManager.default.fileExists(atPath: tree)
        {
            return .planned(plan)
        }
        let manifestPath = store.manifestFile(productID: id, version: version).path
        guard FileManager.default.fileExists(atPath: manifestPath) else { return .wholeArchive }
        if let existing = await manager.snapshot(of: id), existing.contentVersion == version, existing.downloadedBytes > 0,
           existing.expectedContentLength == product.length, [.waiting, .active, .paused, .failed].contains(existing.state)
        {
            unlink(manifestPath)  // a whole-archive download of this version is under way: it finishes as it is
            return .wholeArchive
        }
        let metadata: Logger.Metadata = ["product": "\(id)", "version": "\(version)"]
        await manager.forgetProgress(id, version: version)  // a stopped attempt's bytes belonged to the tree about to be built anew
        let store = self.store
        let result = await BlockingCall.run(thread: "iap-update") { () -> Result<DeltaPlan, InstallError> in
            do throws(InstallError) {
                let package = try Self.checkedPackage(manifestPath: manifestPath, product: product)
                // Every path is checked before the installed version's manifest is read, so the two manifests and
                // the paths the check remembers are never held at once.
                _ = try DeltaPreparation.admit(package, treePath: tree)
                let base = Self.installedChunks(of: id, in: store, sharingPathsWith: package.manifest.files, metadata: metadata)
                func plan(from base: (InstalledChunks, timespec?, URL)?) throws(InstallError) -> DeltaPlan {
                    let from = try base.map { base throws(InstallError) in
                        (base.0, try InstalledFolder(path: base.2.path, seal: base.1, distrusted: damaged))
                    }
                    return try DeltaPreparation(
                        package: package, installed: from, treePath: tree, archiveLength: product.length, admitted: true
                    ).run()
                }
                do throws(InstallError) { return .success(try plan(from: base)) } catch {
                    // Only a plan that has nothing to fetch is made again from nothing; anything else is refused.
                    guard base != nil, case .archiveMismatch(_, let reason) = error, reason == DeltaPreparation.nothingToFetch else { throw error }
                    return .success(try plan(from: nil))
                }
            } catch {
                return .failure(error)
            }
        }
        // The plan's working set (the manifest decoded and checked, the installed version's index) is gone: its
        // pages go back before the transfer builds its own.
        ProcessMemory.returnFreePages()
        switch result {
        case .success(let plan):
            DownloadLog.transfer.debug(
                plan.linkedFiles + plan.rebuiltChunks > 0 ? "update: fetching only what changed" : "install: fetching every chunk",
                metadata: metadata.merging([
                    "linked": "\(plan.linkedFiles) files", "rebuilt": "\(plan.rebuiltChunks) chunks (\(plan.rebuiltBytes) bytes)",
                    "fetch": "\(plan.fetch.count) chunks (\(plan.fetchBytes) of \(product.length) bytes)",
                ]) { $1 })
            return .planned(plan)
        case .failure(let error):
            store.discardUpdate(productID: id, version: version)
            unlink(manifestPath)  // refused: fetched again (and checked again) next time
            DownloadLog.transfer.debug("the download is refused before any archive byte is fetched", metadata: metadata.merging(["reason": "\(error)"]) { $1 })
            if case .insufficientSpace(let needed, let available) = error {
                return .refused(.insufficientSpace(needed: needed - available, path: store.root.path))
            }
            return .refused(DownloadError(code: .install, message: "cannot install \(id) \(version): \(error)"))
        }
    }

    /// The installed version's chunk index, seal and folder, when it was installed from a chunk-indexed archive
    /// whose manifest the store keeps; `nil` otherwise (every chunk is fetched). Its paths share the bytes of the
    /// equal paths of `files` (the new manifest's): an update's two manifests hold most paths once.
    nonisolated static func installedChunks(
        of id: String, in store: Store, sharingPathsWith files: [PackageManifest.File], metadata: Logger.Metadata
    ) -> (InstalledChunks, timespec?, URL)? {
        guard let content = store.contentURL(forProductID: id) else { return nil }
        guard let (manifest, seal) = store.installedManifest(productID: id, sharingPathsWith: files), manifest.chunks != nil else {
            DownloadLog.transfer.debug(
                "the installed version has no chunk-indexed manifest in the store; fetching every chunk", metadata: metadata)
            return nil
        }
        return (InstalledChunks(manifest: manifest), seal, content)
    }

    /// The kept manifest, decoded and checked against the catalog's product (identity, archive, chunk index).
    nonisolated static func checkedPackage(manifestPath: String, product: CatalogProduct) throws(InstallError) -> ChunkedPackage {
        let manifest: PackageManifest
        do { manifest = try PackageManifest.decode(contentsOfFile: manifestPath) } catch {
            throw .archiveMismatch(path: manifestPath, reason: "cannot be read: \(error)")
        }
        guard manifest.productID == product.productID, manifest.contentVersion == product.contentVersion else {
            throw .archiveMismatch(
                path: manifestPath,
                reason: "describes \(manifest.productID) \(manifest.contentVersion), but the signed catalog offers \(product.productID) \(product.contentVersion) with it; the publisher must publish the right manifest")
        }
        return try ChunkedPackage(manifest: manifest, expectedLength: product.length, expectedSHA256: product.sha256, display: manifestPath)
    }
}
