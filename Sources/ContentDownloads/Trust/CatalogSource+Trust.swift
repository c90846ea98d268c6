public import ContentDelivery
public import Foundation

extension CatalogSource {
    /// Loads a catalog and checks it before anything in it is used: signature (when keys are pinned),
    /// expiry, then rollback against the highest `catalogVersion` this store accepted from the same URL.
    ///
    /// With keys pinned, `catalog.json.sig` is fetched from beside the catalog and must verify with one
    /// of them. With no key pinned the catalog is accepted unsigned — for development only, since
    /// whoever controls the server then controls the content — but expiry and rollback still apply.
    /// The remembered version is raised only after the catalog verified, so a refused catalog changes nothing.
    ///
    /// - Parameters:
    ///   - location: The catalog's URL (`http`, `https`, `file`) or path.
    ///   - pinnedPublicKeys: Base64 Ed25519 public keys (from `iapcontent keygen`); any one may sign.
    ///   - store: The store whose journal remembers the highest version seen.
    ///   - caFile: Extra trusted certificate authorities (PEM).
    ///   - now: The clock used for expiry.
    /// - Throws: ``DownloadError`` with a distinct code per refusal (`.missingSignature`, `.badSignature`,
    ///   `.catalogExpired`, `.rollback`), or `.catalog` when it cannot be fetched or decoded.
    public static func loadVerified(
        _ location: String, pinnedPublicKeys: [String], store: Store, caFile: String? = nil, now: Date = Date()
    ) throws(DownloadError) -> CatalogSource {
        let url = resolve(location)
        let key = url.absoluteString
        let verifier: CatalogVerifier
        do throws(CatalogVerificationError) {
            verifier = pinnedPublicKeys.isEmpty ? .allowingUnsigned : try CatalogVerifier(pinnedPublicKeys: pinnedPublicKeys)
        } catch {
            throw .untrusted(error, catalogURL: key)
        }
        guard let data = try read(url, caFile: caFile, what: "catalog") else {
            throw DownloadError(code: .catalog, message: "the catalog \(key) is empty; check the URL")
        }
        let signature = pinnedPublicKeys.isEmpty
            ? nil : try read(signatureURL(for: url), caFile: caFile, what: "catalog signature", allowMissing: true)
        let journal: SQLiteJournal
        let seen: UInt64?
        do {
            journal = try store.journal()
            seen = try journal.highestCatalogVersion(catalogURL: key)
        } catch {
            throw DownloadError(code: .io, message: "cannot read the store's journal \(store.journalFile.path): \(error); check permissions")
        }
        let catalog: Catalog
        do throws(CatalogVerificationError) {
            catalog = try verifier.verify(catalogData: data, signatureData: signature, highestSeenVersion: seen, now: now)
        } catch {
            throw .untrusted(error, catalogURL: key)
        }
        do { try journal.recordCatalogVersion(catalog.catalogVersion, catalogURL: key) } catch {
            throw DownloadError(code: .io, message: "cannot record the catalog version in \(store.journalFile.path): \(error); check permissions and free space")
        }
        return CatalogSource(catalog: catalog, location: url)
    }

    /// `catalog.json.sig` beside the catalog (`<catalog path>.sig`, same query).
    public static func signatureURL(for catalogURL: URL) -> URL {
        guard var components = URLComponents(url: catalogURL, resolvingAgainstBaseURL: true) else {
            return URL(string: catalogURL.absoluteString + ".sig")!
        }
        components.percentEncodedPath += ".sig"
        return components.url ?? URL(string: catalogURL.absoluteString + ".sig")!
    }

    /// Every URL the product's archive may come from, best first: the pinned url, each mirror, the
    /// catalog's own folder (see ``Catalog/archiveURLs(for:catalogURL:)``).
    public func archiveURLCandidates(for product: CatalogProduct) -> [String] {
        let candidates = catalog.archiveURLs(for: product, catalogURL: location).map(\.absoluteString)
        return candidates.isEmpty ? [archiveURL(for: product)] : candidates
    }
}
