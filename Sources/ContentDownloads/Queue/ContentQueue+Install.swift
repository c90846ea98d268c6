internal import Logging
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation

extension DownloadError.Code {
    /// The verified archive could not be installed (unsafe, wrong content, file system trouble).
    public static let install = DownloadError.Code(rawValue: "install")
}

extension DownloadError {
    /// The download error an install failure becomes (`insufficientSpace` keeps its code and numbers).
    public static func install(_ error: InstallError, store: String) -> DownloadError {
        switch error {
        case .insufficientSpace(let needed, let available):
            DownloadError(
                code: .insufficientSpace,
                message: "not enough disk space in \(store) to install: \(needed) bytes needed, \(available) available (\(max(0, needed - available)) more); free some space and run the command again — the verified archive is kept, and reopening the store installs it without downloading again")
        default:
            DownloadError(code: Code(error), message: "cannot install: \(error.description)")
        }
    }
}

extension ContentQueue {
    /// The post-verify step: journal `installing`, install off the cooperative pool, return (the
    /// manager then records `finished` + `installed`).
    func install(_ archive: VerifiedArchive) async throws {
        let started = MonotonicTime.now()
        defer { DownloadMetrics.installed(seconds: MonotonicTime.now() - started) }
        CrashHook.reach(.verify)
        guard let product = product(archive.productID, version: archive.contentVersion) else {
            throw DownloadError(
                code: .install,
                message: "no transaction or catalog entry describes \(archive.productID) \(archive.contentVersion); add the purchase again with a current catalog")
        }
        try? ledger.recordPhase(archive.productID, .installing)
        let metadata: Logger.Metadata = ["product": "\(product.productID)", "version": "\(product.contentVersion)"]
        if archive.plan == .chunks {
            DownloadLog.install.debug("commit: installed chunk by chunk while downloading, swapping in", metadata: metadata)
            let url = try await Self.runCommit(
                try StagingFolder(adopting: archive.archivePath), product: product, archive: nil, store: store,
                options: installOptions)
            store.keepInstalledManifest(productID: product.productID, version: archive.contentVersion)
            store.discardTransfer(
                productID: product.productID, version: archive.contentVersion,
                partialPath: store.partialFile(productID: product.productID).path)
            DownloadLog.install.debug("installed", metadata: metadata.merging(["contentURL": "\(url.path)"]) { $1 })
            return
        }
        if let running = overlapped.take(productID: product.productID, sha256: product.sha256) {
            if case .success(let staging) = await running.result() {
                DownloadLog.install.debug("commit: extracted while downloading, swapping in", metadata: metadata)
                let url = try await Self.runCommit(
                    staging, product: product, archive: archive.archivePath, store: store, options: installOptions)
                DownloadLog.install.debug("installed", metadata: metadata.merging(["contentURL": "\(url.path)"]) { $1 })
                return
            }
            DownloadLog.install.debug("extraction while downloading was abandoned; installing from the verified archive", metadata: metadata)
            // Abandoned or refused while streaming: install from the verified archive, which
            // gives the definitive answer (and the same words for a refused entry).
        }
        // The engine hashed exactly these bytes (streaming, or re-hashing the kept prefix after a
        // restart) and renamed the file into the store moments ago, in this process: a second full
        // read would cost ~0.6 s/GiB and protect only against someone who can already write the
        // store. Archives found on disk after a restart (recovery, `--no-install`) are re-hashed.
        var options = installOptions
        options.verifySHA256 = false
        DownloadLog.install.debug("extracting the verified archive", metadata: metadata)
        let url = try await Self.runInstall(
            archive: URL(fileURLWithPath: archive.archivePath), product: product, store: store, options: options)
        DownloadLog.install.debug("installed", metadata: metadata.merging(["contentURL": "\(url.path)"]) { $1 })
    }

    /// The catalog product a transaction (or the catalog) gives for this product version.
    func product(_ productID: String, version: String) -> CatalogProduct? {
        if let row = rows.values.first(where: { $0.productID == productID && $0.product.contentVersion.description == version }) {
            return row.product
        }
        if let product = catalog?.catalog.product(productID), product.contentVersion.description == version { return product }
        return nil
    }

    /// Runs the (blocking) installer on a dispatch queue, never on a cooperative thread.
    nonisolated static func runInstall(
        archive: URL, product: CatalogProduct, store: Store, options: ContentInstaller.Options
    ) async throws -> URL {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                do throws(InstallError) {
                    let url = try ContentInstaller.install(archive: archive, product: product, store: store, options: options)
                    continuation.resume(returning: url)
                } catch {
                    continuation.resume(throwing: DownloadError.install(error, store: store.root.path))
                }
            }
        }
    }

    /// Swaps an extracted staging folder in, on a dispatch queue (never on a cooperative thread).
    nonisolated static func runCommit(
        _ staging: StagingFolder, product: CatalogProduct, archive: String?, store: Store,
        options: ContentInstaller.Options
    ) async throws -> URL {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                do throws(InstallError) {
                    let url = try ContentInstaller.commit(
                        staging, product: product, store: store, archivePath: archive, options: options)
                    continuation.resume(returning: url)
                } catch {
                    continuation.resume(throwing: DownloadError.install(error, store: store.root.path))
                }
            }
        }
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
                _ = try await Self.runCommit(
                    try StagingFolder(adopting: archive), product: product, archive: nil, store: store, options: installOptions)
                store.keepInstalledManifest(productID: record.productID, version: record.contentVersion)
                store.discardTransfer(productID: record.productID, version: record.contentVersion, partialPath: record.partialPath)
            } else {
                _ = try await Self.runInstall(
                    archive: URL(fileURLWithPath: archive), product: product, store: store, options: installOptions)
            }
            record.markInstalled()
        } catch {
            let failure = error as? DownloadError ?? DownloadError(code: .install, message: "\(error)")
            record.failInstall(with: failure)
        }
    }
}
