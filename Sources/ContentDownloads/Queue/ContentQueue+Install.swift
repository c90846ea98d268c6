internal import Logging
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation

extension ContentQueue {
    /// The catalog product a transaction (or the catalog) gives for this product version.
    func product(_ productID: String, version: String) -> CatalogProduct? {
        if let row = rows.values.first(where: { $0.productID == productID && $0.product.contentVersion.description == version }) {
            return row.product
        }
        if let product = catalog?.catalog.product(productID), product.contentVersion.description == version { return product }
        return nil
    }

    /// The commit stage as this queue runs it: the driver's step after verification, and the recovery's.
    var commit: VerifiedCommit {
        VerifiedCommit(
            store: store, ledger: ledger, options: installOptions, overlapped: overlapped,
            product: { [weak self] productID, version in await self?.product(productID, version: version) })
    }

    /// Crash recovery of installs, before transfers start (the caller holds the driver lock):
    /// - `verified`/`installing` with the archive on disk → install it again (re-extract), or with the tree of
    ///   a chunk-indexed download → swap it in (unless this version is installed: then the tree is the old one);
    /// - archive gone but this version installed → the crash came after the swap: `finished`;
    /// - neither → download again from zero;
    /// - `finished` rows whose archive is still there (crash before cleanup) → delete the archive.
    func recoverInstalls() async throws {
        for var record in try ledger.records() {
            let phase = record.transferPhase
            let archive = record.archivePath.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
            if record.downloadState == .finished {
                if phase == .installed || phase == .installing, let archive, installOptions.removeArchive,
                   store.installedVersion(forProductID: record.productID)?.description == record.contentVersion
                {
                    store.discardTransfer(productID: record.productID, version: record.contentVersion, partialPath: archive)
                }
                continue
            }
            guard record.downloadState != .cancelled, phase == .verified || phase == .installing else { continue }
            let installedNow = store.installedVersion(forProductID: record.productID)?.description == record.contentVersion
            let isTree = record.planKind == .chunks
            if let archive, !(installedNow && isTree), let product = product(record.productID, version: record.contentVersion) {
                await installVerified(archive, of: product, recording: &record)
            } else if let installed = store.installedVersion(forProductID: record.productID),
                      installed.description == record.contentVersion || ContentVersion(record.contentVersion).map({ installed >= $0 }) == true
            {
                if archive != nil, isTree {
                    // An update's swap happened (the tree holds the old version): keep and seal its manifest. A
                    // repair (same version, manifest kept already) may or may not have swapped: leave the seal as
                    // it was, so files changed since are still hashed; `repair` again finds what is left.
                    if store.installedManifest(productID: record.productID) == nil {
                        store.keepInstalledManifest(productID: record.productID, version: record.contentVersion)
                    }
                    store.discardTransfer(productID: record.productID, version: record.contentVersion, partialPath: record.partialPath)
                }
                record.markInstalled()
            } else {
                record.restartDownload()
            }
            try ledger.save(record)
        }
    }

    /// Recovery: installs the archive (or swaps in the tree) a crash left verified, and records the outcome.
    private func installVerified(_ archive: String, of product: CatalogProduct, recording record: inout TransferRecord) async {
        DownloadLog.queue.debug(
            "recovery: installing the archive a crash left verified",
            metadata: ["product": "\(record.productID)", "version": "\(record.contentVersion)"])
        do {
            if record.planKind == .chunks {
                _ = try await commit.swapInTree(archive, of: product)
                store.discardTransfer(productID: record.productID, version: record.contentVersion, partialPath: record.partialPath)
            } else {
                _ = try await VerifiedCommit.runInstall(
                    archive: URL(fileURLWithPath: archive), product: product, store: store, options: installOptions)
            }
            record.markInstalled()
        } catch {
            let failure = error as? DownloadError ?? DownloadError(code: .install, message: "\(error)")
            record.failInstall(with: failure)
        }
    }
}
