import ContentDelivery
import ContentDownloads
import Foundation

/// Loads the catalog for `download` and `restore`: verified (signature, expiry, rollback against
/// the store's highest seen version) when public keys are pinned, else as-is.
func loadCatalog(_ location: String, caFile: String?, publicKeys: [String], layout: StoreLayout) throws(DownloadError) -> CatalogSource {
    guard !publicKeys.isEmpty else { return try CatalogSource.load(location, caFile: caFile) }
    let verifier: CatalogVerifier
    do { verifier = try CatalogVerifier(pinnedPublicKeys: publicKeys) } catch {
        throw DownloadError(code: .catalog, message: "--public-key: \(error.description)")
    }
    return try CatalogSource.loadVerified(location, verifier: verifier, store: layout, caFile: caFile)
}
