public import ContentDelivery
internal import Logging
public import Foundation

extension CatalogSource {
    /// Loads a catalog and checks it before anything in it is used, trusting `caFile` for https; see
    /// ``loadVerified(_:pinnedPublicKeys:store:transport:now:)-2ovgw``, which this calls with only that setting.
    public static func loadVerified(
        _ location: String, pinnedPublicKeys: [String], store: Store, caFile: String? = nil, now: Date = Date()
    ) throws(DownloadError) -> CatalogSource {
        var transport = TransferSettings()
        transport.caFile = caFile
        return try loadVerified(location, pinnedPublicKeys: pinnedPublicKeys, store: store, transport: transport, now: now)
    }

    /// Loads a catalog and checks it before anything in it is used: signature (when keys are pinned),
    /// expiry, then rollback against the highest `catalogVersion` this store accepted from the same URL.
    ///
    /// With keys pinned, the catalog's signature is fetched from beside it (`signatures/<sha256>.sig` when the host
    /// has it, else `catalog.json.sig`) and must verify with one of them. With no key pinned the catalog is accepted unsigned — for development only, since
    /// whoever controls the server then controls the content — but expiry and rollback still apply.
    /// The remembered version is raised only after the catalog verified, so a refused catalog changes nothing.
    /// Blocks the calling thread while it fetches; from async code use the `async` variant.
    ///
    /// - Parameters:
    ///   - location: The catalog's URL (`http`, `https`, `file`) or path.
    ///   - pinnedPublicKeys: Base64 Ed25519 public keys (from `iapcontent keygen`); any one may sign.
    ///   - store: The store whose journal remembers the highest version seen.
    ///   - transport: How to reach the server (CA file, proxy, client certificate, User-Agent, headers),
    ///     the same ``DownloadOptions/transfer`` the archives use.
    ///   - now: The clock used for expiry.
    /// - Throws: ``DownloadError`` with a distinct code per refusal (`.missingSignature`, `.badSignature`,
    ///   `.catalogExpired`, `.rollback`), or `.catalog` when it cannot be fetched or decoded.
    public static func loadVerified(
        _ location: String, pinnedPublicKeys: [String], store: Store, transport: TransferSettings, now: Date = Date()
    ) throws(DownloadError) -> CatalogSource {
        let url = resolve(location)
        let verifier = try verifier(pinning: pinnedPublicKeys, catalogURL: url)
        guard let data = try read(url, transport: transport, what: "catalog") else {
            throw DownloadError(code: .catalog, message: "the catalog \(url.absoluteString) is empty; check the URL")
        }
        let signature = pinnedPublicKeys.isEmpty ? nil : try fetchSignature(of: data, catalogURL: url, transport: transport)
        return try accept(data, signature: signature, location: url, verifier: verifier, store: store, now: now)
    }

    /// A catalog from bytes the service fetched itself, checked exactly as
    /// ``loadVerified(_:pinnedPublicKeys:store:transport:now:)-2ovgw`` checks a fetched one: signature over these exact
    /// bytes (when keys are pinned), expiry, then rollback against the highest version this store accepted from
    /// `location`.
    ///
    /// - Parameters:
    ///   - catalogData: The bytes of `catalog.json`, unchanged.
    ///   - signatureData: The bytes of `catalog.json.sig` (`nil` when the service found none: refused with keys pinned).
    ///   - location: Where the catalog came from: the key of the rollback memory, and what relative archive
    ///     paths resolve against.
    ///   - pinnedPublicKeys: Base64 Ed25519 public keys; any one may sign. None: accepted unsigned (development).
    ///   - store: The store whose journal remembers the highest version seen.
    ///   - now: The clock used for expiry.
    /// - Throws: ``DownloadError`` with the same codes as a fetched catalog's refusals.
    public static func verified(
        catalogData: Data, signatureData: Data?, location: URL, pinnedPublicKeys: [String], store: Store, now: Date = Date()
    ) throws(DownloadError) -> CatalogSource {
        let verifier = try verifier(pinning: pinnedPublicKeys, catalogURL: location)
        return try accept(catalogData, signature: signatureData, location: location, verifier: verifier, store: store, now: now)
    }

    /// The verifier for `keys` (none: unsigned catalogs accepted); malformed keys are refused before any fetch.
    private static func verifier(pinning keys: [String], catalogURL: URL) throws(DownloadError) -> CatalogVerifier {
        do throws(CatalogVerificationError) {
            return keys.isEmpty ? .allowingUnsigned : try CatalogVerifier(pinnedPublicKeys: keys)
        } catch {
            throw .untrusted(error, catalogURL: catalogURL.absoluteString)
        }
    }

    /// The one trust path of every catalog: verifies `data` (and `signature`) against the store's rollback memory
    /// for `location`, then raises that memory to the accepted version.
    private static func accept(
        _ data: Data, signature: Data?, location: URL, verifier: CatalogVerifier, store: Store, now: Date
    ) throws(DownloadError) -> CatalogSource {
        let key = location.absoluteString
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
        return CatalogSource(catalog: catalog, location: location)
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
    /// catalog's own folder (see `Catalog.archiveURLs(for:catalogURL:)`).
    ///
    /// Only the URLs the URL rule permits (`OriginRule`: http(s), and `file` for a local catalog); a refused one
    /// is logged and left out. When none is left, `archiveURLRefusal(for:)` says why and the download fails with it.
    public func archiveURLCandidates(for product: CatalogProduct) -> [String] {
        let candidates = catalog.archiveURLs(for: product, catalogURL: location).map(\.absoluteString)
        return permitted(candidates.isEmpty ? [archiveURL(for: product)] : candidates, what: "archive of \(product.productID)")
    }

    /// Why no URL the catalog names for `product`'s archive may be fetched (``OriginRule``), or `nil` when one may.
    package func archiveURLRefusal(for product: CatalogProduct) -> DownloadError? {
        let candidates = catalog.archiveURLs(for: product, catalogURL: location).map(\.absoluteString)
        let all = candidates.isEmpty ? [archiveURL(for: product)] : candidates
        guard let first = all.first, all.allSatisfy({ OriginRule.refusal($0, catalog: location) != nil }) else { return nil }
        return DownloadError(
            code: .catalog,
            message: "the catalog names no archive URL for \(product.productID) a client may fetch: \(OriginRule.refusal(first, catalog: location)!); the publisher must name http(s) URLs")
    }

    /// `urls` without those the URL rule refuses, each refused one logged with its reason.
    func permitted(_ urls: [String], what: String) -> [String] {
        urls.filter { url in
            guard let refusal = OriginRule.refusal(url, catalog: location) else { return true }
            DownloadLog.transfer.notice("a URL the catalog names is refused", metadata: ["for": "\(what)", "reason": "\(refusal)"])
            return false
        }
    }
}
