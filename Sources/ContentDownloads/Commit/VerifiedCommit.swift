internal import Logging
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation

/// The commit stage's entry: what the driver runs once every byte of a download is in and verified (its
/// ``PostVerifyStep``). A chunk plan's tree, built in place, is swapped in; an archive extracted while it
/// downloaded is swapped in; any other verified archive is extracted, then swapped in. The download is `finished`
/// when this returns; a ``DownloadError`` it throws makes the download `failed` with it.
///
/// The queue makes one at `open` and installs it in the driver, so a download goes forward from the driver to this
/// stage and never back into the queue. What it needs of the queue is one fact, asked through ``product``: the
/// catalog product of the version (from its transaction, or from the catalog), which sizes and vouches for the
/// folder it installs.
struct VerifiedCommit: Sendable {
    let store: Store
    let ledger: Ledger
    let options: ContentInstaller.Options
    /// The extractions that follow running downloads (shared with the driver's feed).
    let overlapped: OverlappedInstalls
    /// The catalog product of a product version (`productID`, `version`), `nil` when no transaction or catalog
    /// entry describes it.
    let product: @Sendable (_ productID: String, _ version: String) async -> CatalogProduct?

    /// Journals `installing`, then installs `archive` off the cooperative pool.
    func install(_ archive: VerifiedArchive) async throws {
        let started = MonotonicTime.now()
        defer { DownloadMetrics.installed(seconds: MonotonicTime.now() - started) }
        CrashHook.reach(.verify)
        guard let product = await product(archive.productID, archive.contentVersion) else {
            throw DownloadError(
                code: .install,
                message: "no transaction or catalog entry describes \(archive.productID) \(archive.contentVersion); add the purchase again with a current catalog")
        }
        try? ledger.recordPhase(archive.productID, .installing)
        let metadata: Logger.Metadata = ["product": "\(product.productID)", "version": "\(product.contentVersion)"]
        if archive.plan == .chunks {
            DownloadLog.install.debug("commit: installed chunk by chunk while downloading, swapping in", metadata: metadata)
            let url = try await swapInTree(archive.archivePath, of: product)
            DownloadLog.install.debug("installed", metadata: metadata.merging(["contentURL": "\(url.path)"]) { $1 })
            return
        }
        if let running = overlapped.take(productID: product.productID, sha256: product.sha256) {
            if case .success(let staging) = await running.result() {
                DownloadLog.install.debug("commit: extracted while downloading, swapping in", metadata: metadata)
                let url = try await Self.runCommit(staging, product: product, archive: archive.archivePath, store: store, options: options)
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
        var options = options
        options.verifySHA256 = false
        DownloadLog.install.debug("extracting the verified archive", metadata: metadata)
        let url = try await Self.runInstall(
            archive: URL(fileURLWithPath: archive.archivePath), product: product, store: store, options: options)
        DownloadLog.install.debug("installed", metadata: metadata.merging(["contentURL": "\(url.path)"]) { $1 })
    }

    /// Swaps in the tree a chunk plan built at `treePath` and keeps its manifest as the installed version's. The
    /// download's other files (plan, placed-chunks log, manifest copy) are spent; whoever decided the download
    /// deletes them (the driver once this returns, the queue's recovery).
    func swapInTree(_ treePath: String, of product: CatalogProduct) async throws -> URL {
        let url = try await Self.runCommit(
            try StagingFolder(adopting: treePath), product: product, archive: nil, store: store, options: options)
        store.keepInstalledManifest(productID: product.productID, version: product.contentVersion.description)
        return url
    }

    /// Runs the (blocking) installer on a dispatch queue, never on a cooperative thread.
    static func runInstall(
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
    static func runCommit(
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
}
