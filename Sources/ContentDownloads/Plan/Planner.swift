internal import SystemSupport
internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging

/// The plan stage: decides what a download is, once, before any archive byte is requested.
///
/// A download is one of two kinds (``DownloadPlanKind``), decided by ``kind(manifestKept:keptPlan:journaled:)``
/// and nowhere else: a **chunk plan** when the store keeps the signed manifest of a chunk-indexed archive
/// (``ManifestFetch``), else the **whole archive**. An install from nothing, an update from the installed version
/// and a repair are all chunk plans: ``decide(_:distrusting:metadata:)`` decodes and checks the manifest (product
/// and version against the catalog, every path, folder, offset, size and count, the chunk index), drafts what is
/// linked, rebuilt and fetched, and checks the free space with ``SpacePreflight`` — the one formula every kind uses
/// (``checkWholeArchiveSpace(_:kept:)`` for the other kind). The place stage then builds the tree from the
/// decision (`TreeBuilder`).
///
/// Owner: the caller's thread. ``decide(_:distrusting:metadata:)`` blocks (it reads manifests and the installed
/// folder): the queue runs it on `iap-update`.
struct Planner: Sendable {
    let store: Store
    /// The free-space rule (`nil`: not checked; tests on tiny file systems turn it off).
    let space: SpacePreflight?
    /// Where an archive's dictionary comes from when its manifest names one (`nil`: only a copy the store keeps).
    var dictionaries: DictionaryFetch? = nil

    /// The kind of a download: a chunk plan kept for this version is followed; a whole-archive attempt of this
    /// version that kept bytes (`journaled`) finishes as it began; otherwise a kept manifest makes a chunk plan.
    static func kind(manifestKept: Bool, keptPlan: Bool, journaled: DownloadPlanKind?) -> DownloadPlanKind {
        if keptPlan { return .chunks }
        if journaled == .wholeArchive { return .wholeArchive }
        return manifestKept ? .chunks : .wholeArchive
    }

    /// The checked decision for a chunk plan of `product` into `treePath`: from the installed version when it was
    /// installed from a chunk-indexed archive whose manifest the store keeps (files named in `damaged` are never
    /// linked or read), else from nothing; a plan from the installed version that has nothing to fetch is made
    /// from nothing.
    /// - Throws: ``InstallError`` naming the manifest or path and the reason; nothing is written.
    func decide(
        _ product: CatalogProduct, distrusting damaged: Set<String>, selection: PackSelection, metadata: Logger.Metadata
    ) throws(InstallError) -> ChunkPlanDecision {
        let id = product.productID, version = product.contentVersion.description
        let manifestPath = store.manifestFile(productID: id, version: version).path
        let tree = store.updateTreeDirectory(productID: id, version: version).path
        var package = try Self.checkedPackage(manifestPath: manifestPath, product: product)
        if let record = package.manifest.dictionary {  // before any frame is decoded: fetched and checked once
            if let dictionaries {
                package.dictionary = try dictionaries.load(record, for: product)
            } else {
                package.dictionary = try DictionaryFetch.kept(at: store.dictionaryFile(productID: id, version: version).path, record: record)
            }
        }
        try package.select(selection, display: manifestPath)
        // Every path is checked before the installed version's manifest is read, so the two manifests and the
        // paths the check remembers are never held at once.
        _ = try PlanBuilder.admit(package, treePath: tree)
        let base = Self.installedChunks(of: id, in: store, sharingPathsWith: package.manifest.files, metadata: metadata)
        let installed = try base.map { base throws(InstallError) in
            (chunks: base.0, folder: try InstalledFolder(path: base.2.path, seal: base.1, distrusted: damaged))
        }
        do throws(InstallError) {
            var builder = builder(package, installed: installed, treePath: tree, archiveLength: product.length)
            // What a precomputed patch made for this version (``PatchFetch``): taken whole, checked again by the tree.
            let store = self.store
            builder.patched = { index in
                FileManager.default.fileExists(atPath: store.patchedFile(productID: id, version: version, file: index).path)
            }
            return try builder.decide()
        } catch {
            guard installed != nil, Self.isNothingToFetch(error) else { throw error }
            return try fromNothing(package, treePath: tree, archiveLength: product.length)
        }
    }

    /// The decision for a change of installed `productID` to `selection` made from the installed files alone — a
    /// pack removed, or variants whose files are all installed — or `nil` when the change must fetch (or the folder
    /// was not installed from a chunk-indexed archive). It follows the installed version's own manifest, which the
    /// signed chain vouched for when it was installed (`manifests/`), so it needs no catalog and no network.
    /// - Throws: ``InstallError`` naming the manifest or path and the reason; nothing is written.
    func decideLocal(productID id: String, selection: PackSelection, metadata: Logger.Metadata) throws(InstallError) -> ChunkPlanDecision? {
        let manifestPath = store.installedManifestFile(productID: id).path
        guard let version = store.installedVersion(forProductID: id),
              let manifest = try? PackageManifest.decode(contentsOfFile: manifestPath), manifest.contentVersion == version,
              manifest.chunks != nil
        else { return nil }
        var package = try ChunkedPackage(
            manifest: manifest, expectedLength: manifest.archiveSize, expectedSHA256: manifest.archiveSHA256 ?? "", display: manifestPath)
        try package.select(selection, display: manifestPath)
        let tree = store.updateTreeDirectory(productID: id, version: version.description).path
        _ = try PlanBuilder.admit(package, treePath: tree)
        guard let base = Self.installedChunks(of: id, in: store, sharingPathsWith: package.manifest.files, metadata: metadata) else {
            return nil
        }
        var builder = builder(
            package, installed: (base.0, try InstalledFolder(path: base.2.path, seal: base.1, distrusted: [])), treePath: tree,
            archiveLength: manifest.archiveSize)
        builder.local = true
        let decision = try builder.decide()
        return decision.draft.fetch.isEmpty ? decision : nil
    }

    /// The decision that fetches every chunk of `package`: an install from nothing.
    func fromNothing(_ package: ChunkedPackage, treePath: String, archiveLength: Int64) throws(InstallError) -> ChunkPlanDecision {
        try builder(package, installed: nil, treePath: treePath, archiveLength: archiveLength).decide()
    }

    /// Whether `error` says a plan from the installed version would fetch nothing.
    static func isNothingToFetch(_ error: InstallError) -> Bool {
        if case .archiveMismatch(_, let reason) = error { return reason == PlanBuilder.nothingToFetch }
        return false
    }

    /// Refuses a whole-archive download of `product` when the store's file system cannot hold what is still to
    /// fetch (`kept` bytes are on disk) and the content beside it; the trash is emptied first when that helps.
    func checkWholeArchiveSpace(_ product: CatalogProduct, kept: Int64) throws(InstallError) {
        try space?.check(store: store, archiveLength: max(0, product.length - kept), uncompressedSize: product.uncompressedSize)
    }

    private func builder(
        _ package: ChunkedPackage, installed: (chunks: InstalledChunks, folder: InstalledFolder)?, treePath: String, archiveLength: Int64
    ) -> PlanBuilder {
        PlanBuilder(
            package: package, installed: installed, treePath: treePath, archiveLength: archiveLength, space: space, store: store,
            admitted: true)
    }

    /// The installed version's chunk index, seal and folder, when it was installed from a chunk-indexed archive
    /// whose manifest the store keeps; `nil` otherwise (every chunk is fetched). Its paths share the bytes of the
    /// equal paths of `files` (the new manifest's): an update's two manifests hold most paths once.
    static func installedChunks(
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
    static func checkedPackage(manifestPath: String, product: CatalogProduct) throws(InstallError) -> ChunkedPackage {
        let manifest: PackageManifest
        do { manifest = try PackageManifest.decode(contentsOfFile: manifestPath) } catch let error as UnknownDownloadPolicy {
            throw .refusedManifest(path: manifestPath, reason: error.description)
        } catch let error as ManifestFormatError where error.field == "packs" {
            throw .refusedManifest(path: manifestPath, reason: error.reason)
        } catch {
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
