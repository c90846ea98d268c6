import Foundation
import ContentPackaging

/// A catalog product as two TUF targets: its archive and its manifest, at the paths ``ProductTargetPaths`` gives
/// (`<productID>/[<k>/]<productID>.tar.zst` and `<productID>/[<k>/]<productID>.manifest`), which share a bin.
///
/// The archive target's `custom` holds `{"iapcontent": {"product": <the catalog entry>, "baseURLs": […]}}`: the entry
/// exactly as `catalog.json` writes it, its `path` and `manifest.path` being the target paths and each patch's `path`
/// its file under `targets/` (``patchFile(productID:sha256:)``), so a client loses nothing the catalog told it. The
/// manifest target's `custom` names the product and version it describes. A patch is not a target of its own: its
/// length and SHA-256 are in the entry the bin signs, and the client checks them before using a byte of it.
package struct ProductTargets: Sendable, Equatable {
    /// The archive's target path.
    package var archivePath: String
    /// The archive target.
    package var archive: TargetFile
    /// The manifest's target path, for a chunk-indexed archive.
    package var manifestPath: String?
    /// The manifest target.
    package var manifest: TargetFile?

    /// The targets of `product` at `paths`, from a catalog whose mirrors are `baseURLs`.
    package init(product: CatalogProduct, paths: ProductTargetPaths, baseURLs: [String]) {
        archivePath = paths.archive
        var entry = product
        entry.path = archivePath
        if let (path, target) = Self.manifest(of: product, paths: paths) {
            manifestPath = path
            entry.manifest?.path = path
            manifest = target
        }
        entry.patches = product.patches?.map { patch in
            var hosted = patch
            hosted.path = Self.patchFile(productID: product.productID, sha256: patch.sha256)
            return hosted
        }
        archive = TargetFile(
            length: product.length, sha256: product.sha256,
            custom: ["iapcontent": ["product": entry.jsonValue, "baseURLs": .array(baseURLs.map { .string($0) })]])
    }

    /// The manifest's target path and target at `paths`, for a chunk-indexed product (cheap: no catalog entry is
    /// encoded).
    package static func manifest(of product: CatalogProduct, paths: ProductTargetPaths) -> (path: String, target: TargetFile)? {
        guard let reference = product.manifest else { return nil }
        let target = TargetFile(
            length: reference.length, sha256: reference.sha256,
            custom: ["iapcontent": [
                "manifestOf": .string(product.productID), "contentVersion": .string(product.contentVersion.description),
            ]])
        return (paths.manifest(json: reference.path.hasSuffix(".manifest.json")), target)
    }

    /// Where a patch of `productID` is stored, relative to `targets/`: `<productID>/<sha256>.patch`.
    package static func patchFile(productID: String, sha256: String) -> String { "\(productID)/\(sha256).patch" }

    /// The catalog entry an archive target's `custom` holds; `nil` when it holds none.
    package static func product(in target: TargetFile) -> CatalogProduct? {
        guard case .object(let custom)? = target.custom, case .object(let ours)? = custom["iapcontent"],
              let product = ours["product"]
        else { return nil }
        return try? Catalog.decoder.decode(CatalogProduct.self, from: Data(product.canonicalBytes))
    }
}
