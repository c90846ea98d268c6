import Foundation
import ContentPackaging

/// A catalog product as two TUF targets: its archive (`<productID>/<productID>.tar.zst`) and its manifest
/// (`<productID>/<productID>.manifest`, or `.manifest.json`).
///
/// The archive target's `custom` holds `{"iapcontent": {"product": <the catalog entry>, "baseURLs": […]}}`: the entry
/// exactly as `catalog.json` writes it, its `path` and `manifest.path` being the target paths, so a client
/// loses nothing the catalog told it. The manifest target's `custom` names the product and version it describes.
package struct ProductTargets: Sendable, Equatable {
    /// The archive's target path.
    package var archivePath: String
    /// The archive target.
    package var archive: TargetFile
    /// The manifest's target path, for a chunk-indexed archive.
    package var manifestPath: String?
    /// The manifest target.
    package var manifest: TargetFile?

    /// The targets of `product`, from a catalog whose mirrors are `baseURLs`.
    package init(product: CatalogProduct, baseURLs: [String]) throws {
        archivePath = "\(product.productID)/\(product.productID).tar.zst"
        var entry = product
        entry.path = archivePath
        if let reference = product.manifest {
            let suffix = reference.path.hasSuffix(".manifest.json") ? ".manifest.json" : ".manifest"
            let path = "\(product.productID)/\(product.productID)\(suffix)"
            manifestPath = path
            entry.manifest?.path = path
            manifest = TargetFile(
                length: reference.length, sha256: reference.sha256,
                custom: ["iapcontent": [
                    "manifestOf": .string(product.productID), "contentVersion": .string(product.contentVersion.description),
                ]])
        }
        let productJSON = try JSONParser.parse(Array(Catalog.encoder.encode(entry)))
        archive = TargetFile(
            length: product.length, sha256: product.sha256,
            custom: ["iapcontent": ["product": productJSON, "baseURLs": .array(baseURLs.map { .string($0) })]])
    }

    /// The catalog entry an archive target's `custom` holds; `nil` when it holds none.
    package static func product(in target: TargetFile) -> CatalogProduct? {
        guard case .object(let custom)? = target.custom, case .object(let ours)? = custom["iapcontent"],
              let product = ours["product"]
        else { return nil }
        return try? Catalog.decoder.decode(CatalogProduct.self, from: Data(product.canonicalBytes))
    }
}
