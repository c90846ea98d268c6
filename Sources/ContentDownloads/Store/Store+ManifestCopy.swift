internal import SystemSupport
package import ContentDelivery
internal import ContentPackaging
package import Foundation
internal import Crypto
import Glibc

/// The copy of a download's signed manifest in `transfers/` (``manifestFile(productID:version:)``).
///
/// It is written without an fsync (``keepManifest(_:of:reference:from:)``, `DurableFile.writeUnsynced`), so that the first range request does
/// not wait for the disk, and made durable by ``syncManifest(productID:version:)`` before the plan that follows it
/// is kept (`TreeBuilder`'s `keep`) and so before any fetched byte is placed: a plan on disk always has a durable
/// manifest beside it. A copy a crash left behind before that may be torn; it is only reused once its length and
/// SHA-256 match the signed catalog's again (``keptManifestMatches(_:reference:)``).
extension Store {
    /// Keeps `data` as the manifest of `product`, after checking it against the signed catalog's reference; not
    /// durable until ``syncManifest(productID:version:)``.
    /// - Throws: ``DownloadError`` (`.checksumMismatch`) when length or SHA-256 differ, or a write failure.
    package func keepManifest(_ data: Data, of product: CatalogProduct, reference: ManifestReference, from url: String) throws {
        let sha256 = SHA256.hash(data: data).lowercaseHex
        guard Int64(data.count) == reference.length, sha256 == reference.sha256.lowercased() else {
            throw DownloadError(
                code: .checksumMismatch,
                message: "the manifest at \(url) is \(data.count) bytes with SHA-256 \(sha256), but the signed catalog says \(reference.length) bytes, \(reference.sha256); the mirror serves another file — tell the publisher")
        }
        try DurableFile.writeUnsynced(data, to: manifestFile(productID: product.productID, version: product.contentVersion.description))
    }

    /// Whether the manifest kept for `product` is the very document the signed catalog names (its length and
    /// SHA-256): false for a copy a crash tore before it was durable.
    package func keptManifestMatches(_ product: CatalogProduct, reference: ManifestReference) -> Bool {
        let path = manifestFile(productID: product.productID, version: product.contentVersion.description).path
        guard let data = FileManager.default.contents(atPath: path), Int64(data.count) == reference.length else { return false }
        return SHA256.hash(data: data).lowercaseHex == reference.sha256.lowercased()
    }

    /// Makes the manifest kept for `version` durable (the file, then `transfers/`).
    func syncManifest(productID: String, version: String) throws(FileSystemError) {
        try DurableFile.sync(manifestFile(productID: productID, version: version))
    }
}
