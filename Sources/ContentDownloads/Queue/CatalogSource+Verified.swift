public import ContentDelivery
internal import Foundation

extension CatalogSource {
    /// Loads a signed catalog and checks it before anything in it is trusted: the detached
    /// signature (`catalog.json.sig` beside it) against `verifier`'s pinned keys, expiry, and
    /// rollback against the highest `catalogVersion` this store accepted before — which is then
    /// raised to this catalog's version.
    /// - Throws: ``DownloadError`` with code `.catalog` naming the location and the check that failed.
    public static func loadVerified(
        _ location: String, verifier: CatalogVerifier, store layout: StoreLayout, caFile: String? = nil
    ) throws(DownloadError) -> CatalogSource {
        let url = catalogURL(location)
        let signatureURL = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".sig")
        let catalogData = try read(url, caFile: caFile)
        let signatureData = try? read(signatureURL, caFile: caFile)
        let journal: SQLiteJournal
        let seen: UInt64?
        do {
            journal = try layout.openJournal()
            seen = try journal.highestCatalogVersion()
        } catch {
            throw DownloadError(code: .io, message: "cannot open the store journal \(layout.journal.path): \(error); check the store folder")
        }
        let catalog: Catalog
        do {
            catalog = try verifier.verify(catalogData: catalogData, signatureData: signatureData, highestSeenVersion: seen)
        } catch {
            throw DownloadError(code: .catalog, message: "refusing the catalog \(url.absoluteString): \(error.description)")
        }
        do { try journal.recordCatalogVersion(catalog.catalogVersion) } catch {
            throw DownloadError(code: .io, message: "cannot record the catalog version in \(layout.journal.path): \(error)")
        }
        return CatalogSource(catalog: catalog, location: url)
    }

    /// A URL for a location given as a URL string or a file path.
    static func catalogURL(_ location: String) -> URL {
        if let parsed = URL(string: location), let scheme = parsed.scheme?.lowercased(),
           ["http", "https", "file"].contains(scheme)
        {
            return parsed
        }
        return URL(fileURLWithPath: location)
    }

    private static func read(_ url: URL, caFile: String?) throws(DownloadError) -> Data {
        if url.isFileURL {
            do { return try Data(contentsOf: url) } catch {
                throw DownloadError(code: .catalog, message: "cannot read \(url.path): \(error.localizedDescription); check the path")
            }
        }
        return try fetch(url, caFile: caFile)
    }
}
