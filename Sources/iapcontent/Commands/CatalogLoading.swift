import ContentDelivery
import ContentDownloads
import Foundation

/// Loads the catalog for `download` and `restore` through the client's one trust path
/// (``CatalogSource/loadVerified(_:pinnedPublicKeys:layout:caFile:now:)``): signature when keys are
/// pinned, expiry and rollback always.
func loadCatalog(_ location: String, caFile: String?, publicKeys: [String], layout: StoreLayout) throws(DownloadError) -> CatalogSource {
    try CatalogSource.loadVerified(location, pinnedPublicKeys: publicKeys, layout: layout, caFile: caFile)
}
