public import Foundation
internal import ContentDelivery
internal import Crypto
internal import SystemSupport

extension CatalogSource {
    /// The signature of the exact `catalogData` fetched from `catalogURL`: `signatures/<sha256>.sig` beside the
    /// catalog when the host has it, else `catalog.json.sig`; `nil` when neither exists.
    ///
    /// The signature named by the catalog's hash is written before the catalog and never changes, so it always
    /// matches the bytes in hand, even mid-publish, when `catalog.json` and `catalog.json.sig` can briefly belong to
    /// two different catalogs (`iapcontent publish` writes both forms). Any answer but the signature itself (404,
    /// or the 403 a bucket that may not be listed gives for a missing object) falls back to `catalog.json.sig`:
    /// hosts that predate the form keep working, and the signature is verified either way.
    static func fetchSignature(of catalogData: Data, catalogURL: URL, transport: TransferSettings) throws(DownloadError) -> Data? {
        let byHash = signatureURL(forCatalogSHA256: SHA256.hash(data: catalogData).lowercaseHex, catalogURL: catalogURL)
        if let data = try? read(byHash, transport: transport, what: "catalog signature", allowMissing: true) {
            return data
        }
        return try read(signatureURL(for: catalogURL), transport: transport, what: "catalog signature", allowMissing: true)
    }

    /// `signatures/<sha256>.sig` in the catalog's folder (same query as the catalog's URL): the signature of the
    /// catalog whose bytes hash to `catalogSHA256` (lowercase hex).
    public static func signatureURL(forCatalogSHA256 catalogSHA256: String, catalogURL: URL) -> URL {
        let relative = Catalog.signaturePath(catalogSHA256: catalogSHA256)
        let folder = catalogURL.deletingLastPathComponent()
        guard var components = URLComponents(url: folder, resolvingAgainstBaseURL: true) else {
            return folder.appendingPathComponent(relative)
        }
        let base = components.percentEncodedPath.hasSuffix("/") ? components.percentEncodedPath : components.percentEncodedPath + "/"
        components.percentEncodedPath = base + relative
        components.percentEncodedQuery = URLComponents(url: catalogURL, resolvingAgainstBaseURL: true)?.percentEncodedQuery
        return components.url ?? folder.appendingPathComponent(relative)
    }
}
