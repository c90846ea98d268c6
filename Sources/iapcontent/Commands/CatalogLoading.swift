import ContentDelivery
import ContentDownloads
import Foundation

/// Loads the catalog for `download` and `restore` through the client's one trust path
/// (``CatalogSource/loadVerified(_:pinnedPublicKeys:store:caFile:now:)``): signature when keys are
/// pinned, expiry and rollback always.
func loadCatalog(_ location: String, caFile: String?, publicKeys: [String], store: Store) throws(DownloadError) -> CatalogSource {
    try CatalogSource.loadVerified(location, pinnedPublicKeys: publicKeys, store: store, caFile: caFile)
}
