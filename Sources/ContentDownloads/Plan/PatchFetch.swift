internal import ContentDelivery
internal import ContentPackaging
internal import Crypto
internal import Foundation
internal import Logging
internal import SystemSupport

/// The plan stage's shortest way to a new version: when the signed catalog offers a precomputed patch from the
/// installed version's manifest (``CatalogProduct/patches``), that one file is fetched instead of the new manifest
/// and the changed chunks.
///
/// In order, each step vouched for by the one before: the patch's length and SHA-256 against the signed catalog;
/// the installed manifest it was made from; the new manifest it makes against the catalog's SHA-256, then kept as
/// ``ManifestFetch`` keeps one; each new file it makes against the new manifest's length and SHA-256, written to
/// ``Store/patchedDirectory(productID:version:)``, where the tree takes it (checked once more, `TreeBuilder`). A
/// file that does not come out right (an installed file changed since) is left to the chunks; a patch that fails
/// any other check is not used, and the update fetches the manifest and the chunks as without one.
struct PatchFetch: Sendable {
    let store: Store
    let catalog: CatalogSource?
    let transport: TransferSettings

    /// The patch the catalog offers from the installed version's manifest to `product` (the installed manifest's
    /// bytes beside it), `nil` when it offers none for this store.
    static func offered(for product: CatalogProduct, in store: Store) -> (patch: PatchReference, installedManifest: Data)? {
        let id = product.productID
        guard product.manifest != nil, let offered = product.patches, !offered.isEmpty,
              let installedVersion = store.installedVersion(forProductID: id), installedVersion < product.contentVersion,
              let installedManifest = FileManager.default.contents(atPath: store.installedManifestFile(productID: id).path)
        else { return nil }
        let installedSHA256 = SHA256.hash(data: installedManifest).lowercaseHex
        return offered.first { $0.fromManifestSHA256 == installedSHA256 }.map { ($0, installedManifest) }
    }

    /// Whether a client fetches `patch` for `product`: held in memory while applied, a patch past
    /// ``PatchFormat/largestPatch``, larger than the archive itself, or empty, is not worth it.
    static func isWorthFetching(_ patch: PatchReference, for product: CatalogProduct) -> Bool {
        patch.length > 0 && patch.length <= min(product.length, PatchFormat.largestPatch)
    }

    /// Fetches and applies the patch the catalog offers from the installed version to `product`, when there is one;
    /// returns how many new files it made (0: none, or no patch used).
    func apply(_ product: CatalogProduct) async -> Int {
        let id = product.productID, version = product.contentVersion.description
        guard let catalog, let reference = product.manifest, let folder = store.contentURL(forProductID: id),
              let (patch, installedManifest) = Self.offered(for: product, in: store)
        else { return 0 }
        let metadata: Logger.Metadata = ["product": "\(id)", "to": "\(version)", "patch": "\(patch.path)"]
        guard Self.isWorthFetching(patch, for: product) else {
            DownloadLog.transfer.notice("the patch is not used: the catalog names \(patch.length) bytes, past the archive's or the cap of \(PatchFormat.largestPatch); fetching the manifest and the chunks instead", metadata: metadata)
            return 0
        }
        for url in ManifestFetch.urls(of: patch.path, what: "patch", catalog: catalog) {
            do {
                let made = try await BlockingCall.run(thread: "iap-patch") { () throws -> Int in
                    try apply(patch, from: url, to: product, manifest: reference, installed: installedManifest, folder: folder)
                }
                DownloadLog.transfer.debug("update: a precomputed patch made the new manifest and the changed files", metadata: metadata.merging(["files": "\(made)"]) { $1 })
                return made
            } catch {
                DownloadLog.transfer.notice("the patch is not used; fetching the manifest and the chunks instead", metadata: metadata.merging(["url": "\(url.absoluteString)", "reason": "\(error)"]) { $1 })
            }
        }
        return 0
    }

    /// Fetches `patch` from `url` and applies it; blocking.
    private func apply(
        _ patch: PatchReference, from url: URL, to product: CatalogProduct, manifest reference: ManifestReference, installed: Data,
        folder: URL
    ) throws -> Int {
        let data = try CatalogSource.read(
            url, transport: transport, what: "patch", limit: Int(clamping: patch.length), limitName: "the length the signed catalog names")!
        let hash = SHA256.hash(data: data).lowercaseHex
        guard Int64(data.count) == patch.length, hash == patch.sha256 else {
            throw PatchError("\(url.absoluteString) has \(data.count) bytes hashing to \(hash); the signed catalog names \(patch.length) bytes hashing to \(patch.sha256)")
        }
        let applier = try PatchApplier(data, installedManifest: installed, expectedManifestSHA256: reference.sha256)
        try store.keepManifest(applier.newManifestData, of: product, reference: reference, from: url.absoluteString)
        let id = product.productID, version = product.contentVersion.description
        store.discardPatched(productID: id, version: version)
        try FileManager.default.createDirectory(at: store.patchedDirectory(productID: id, version: version), withIntermediateDirectories: true)
        var made = 0
        for entry in applier.patch.entries {
            let old = entry.oldFile.flatMap { FileManager.default.contents(atPath: folder.appendingPathComponent(applier.oldManifest.files[$0].path).path) }
            let bytes: Data
            do { bytes = try applier.file(entry, old: old) } catch {
                DownloadLog.transfer.notice("a file of the patch is left to the chunks", metadata: ["product": "\(id)", "reason": "\(error)"])
                continue
            }
            // No fsync: the tree checks the file again before it takes it, and makes the tree durable itself.
            try DurableFile.writeUnsynced(bytes, to: store.patchedFile(productID: id, version: version, file: entry.newFile))
            made += 1
        }
        return made
    }
}
