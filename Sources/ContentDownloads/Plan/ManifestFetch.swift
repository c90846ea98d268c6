internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging
internal import SystemSupport

/// The plan stage's first step: the signed manifest of a chunk-indexed product, fetched once from the catalog's
/// mirrors, checked against the signed catalog's length and SHA-256 and kept in the store
/// (``Store/manifestFile(productID:version:)``), where planning, the fetch and a restart read it. The copy is made
/// durable with the plan (`TreeBuilder`'s `keep`), off the path to the first request; a copy found kept is reused
/// only when it still matches the signed catalog.
struct ManifestFetch: Sendable {
    let store: Store
    /// The catalog the product comes from (`nil`: no mirror to fetch from).
    let catalog: CatalogSource?
    /// The archives' connection settings, which the manifest's request uses too.
    let transport: TransferSettings

    /// Makes sure the store holds the manifest of `product` when the catalog names one (a chunk-indexed
    /// archive); true when it does. When no mirror serves it the archive is downloaded whole, as for schema 1,
    /// and a log line says why.
    /// - Throws: ``DownloadError`` (`.catalog`) when the manifest is larger than a client reads
    ///   (``checkManifestSize(_:of:json:)``): the download fails instead of falling back to the whole archive.
    func keep(_ product: CatalogProduct) async throws(DownloadError) -> Bool {
        guard let reference = product.manifest else { return false }
        let version = product.contentVersion.description
        if FileManager.default.fileExists(atPath: store.manifestFile(productID: product.productID, version: version).path) {
            if store.keptManifestMatches(product, reference: reference) { return true }
            // Written before a crash and never made durable: torn. Copied or fetched again, and checked again.
            DownloadLog.transfer.notice(
                "the kept manifest is not the one the signed catalog names; keeping it again", metadata: ["product": "\(product.productID)"])
            store.discardManifest(productID: product.productID, version: version)
        }
        try Self.checkManifestSize(Int(clamping: reference.length), of: product)
        if keepInstalled(product, reference: reference) { return true }
        let candidates = catalog.map { Self.manifestURLs(reference, catalog: $0) } ?? []
        var reasons: [String] = []
        for url in candidates {
            let data: Data
            do {
                data = try await Self.fetch(url, transport: transport, length: reference.length)
            } catch {
                reasons.append("\(url.absoluteString): \(error)")
                continue
            }
            if Int64(data.count) == reference.length, !PackageManifest.isCompact(data) {  // the signed document, in JSON
                try Self.checkManifestSize(data.count, of: product, json: true)
            }
            do {
                try store.keepManifest(data, of: product, reference: reference, from: url.absoluteString)
                DownloadLog.transfer.debug("manifest kept: the archive installs chunk by chunk", metadata: ["product": "\(product.productID)", "url": "\(url.absoluteString)"])
                return true
            } catch {
                reasons.append("\(url.absoluteString): \(error)")
            }
        }
        DownloadLog.transfer.debug(
            "no usable manifest; downloading the whole archive instead",
            metadata: ["product": "\(product.productID)", "reasons": "\(reasons.isEmpty ? "no catalog" : reasons.joined(separator: "; "))"])
        return false
    }

    /// Keeps the installed version's manifest when it is the very document the catalog names (its length and
    /// SHA-256, checked again by ``Store/keepManifest(_:of:reference:from:)``): a repair or a pack request of the
    /// installed version starts its first range request without a round trip for the manifest.
    private func keepInstalled(_ product: CatalogProduct, reference: ManifestReference) -> Bool {
        let installed = store.installedManifestFile(productID: product.productID)
        guard store.installedVersion(forProductID: product.productID) == product.contentVersion,
              let data = FileManager.default.contents(atPath: installed.path), Int64(data.count) == reference.length
        else { return false }
        do { try store.keepManifest(data, of: product, reference: reference, from: installed.path) } catch { return false }
        DownloadLog.transfer.debug("manifest: the installed version's, as the catalog names it", metadata: ["product": "\(product.productID)"])
        return true
    }

    /// Where the manifest may be fetched from, like the archive: each mirror, then the catalog's own folder.
    static func manifestURLs(_ reference: ManifestReference, catalog: CatalogSource) -> [URL] {
        urls(of: reference.path, what: "manifest", catalog: catalog)
    }

    /// Where a file the catalog names by a relative `path` (a manifest, a patch) may be fetched from: each mirror,
    /// then the catalog's own folder, as the URL rule permits.
    static func urls(of path: String, what: String, catalog: CatalogSource) -> [URL] {
        var urls: [URL] = []
        for base in catalog.catalog.baseURLs {
            let directory = base.hasSuffix("/") ? base : base + "/"
            if let url = URL(string: path, relativeTo: URL(string: directory))?.absoluteURL, !urls.contains(url) {
                urls.append(url)
            }
        }
        if let url = URL(string: path, relativeTo: catalog.location)?.absoluteURL, !urls.contains(url) { urls.append(url) }
        // The URL rule (``OriginRule``): a remote catalog's file is never read from this machine's disk.
        let permitted = Set(catalog.permitted(urls.map(\.absoluteString), what: "\(what) \(path)"))
        return urls.filter { permitted.contains($0.absoluteString) }
    }

    /// The manifest at `url`, at most the `length` bytes the signed catalog names, fetched off the cooperative
    /// pool with the archives' connection settings.
    static func fetch(_ url: URL, transport: TransferSettings, length: Int64) async throws(DownloadError) -> Data {
        try await BlockingCall.run(thread: "iap-manifest") { () throws(DownloadError) in
            try CatalogSource.read(
                url, transport: transport, what: "manifest", limit: Int(clamping: length),
                limitName: "the length the signed catalog names")!
        }
    }

    /// Refuses a manifest of `bytes` larger than a client reads: ``PackageManifest/largestCompactManifest``
    /// in the compact format, ``CatalogSource/maxCatalogBytes`` as JSON (`json`), whose decoding takes
    /// several times its size in memory.
    /// - Throws: ``DownloadError`` (`.catalog`) naming the product, the size and the limit.
    static func checkManifestSize(_ bytes: Int, of product: CatalogProduct, json: Bool = false) throws(DownloadError) {
        let (limit, name) = json
            ? (CatalogSource.maxCatalogBytes, "CatalogSource.maxCatalogBytes, for a JSON manifest")
            : (PackageManifest.largestCompactManifest, "PackageManifest.largestCompactManifest")
        guard bytes > limit else { return }
        throw DownloadError(
            code: .catalog,
            message: "the manifest of \(product.productID) \(product.contentVersion) is \(bytes) bytes, more than the \(limit) bytes a client reads (\(name)); the publisher must \(json ? "publish the catalog again with `iapcontent catalog`, which publishes the compact format" : "split the content into several products")")
    }
}
