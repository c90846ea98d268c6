internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging

extension ContentQueue {
    /// Makes sure the store holds the manifest of `product` when the catalog names one (a chunk-indexed
    /// archive), fetched from the catalog's mirrors and checked against the signed catalog's length and
    /// SHA-256; true when it does. Without it the archive is downloaded whole, as for schema 1, and a log
    /// line says why.
    func prepareChunkedInstall(_ product: CatalogProduct) async -> Bool {
        guard let reference = product.manifest else { return false }
        let version = product.contentVersion.description
        if FileManager.default.fileExists(atPath: store.manifestFile(productID: product.productID, version: version).path) { return true }
        let candidates = catalog.map { Self.manifestURLs(reference, catalog: $0) } ?? []
        let transport = await manager.options.transfer  // the archives' connection settings
        var reasons: [String] = []
        for url in candidates {
            do {
                let data = try await Self.fetch(url, transport: transport)
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

    /// Where the manifest may be fetched from, like the archive: each mirror, then the catalog's own folder.
    nonisolated static func manifestURLs(_ reference: ManifestReference, catalog: CatalogSource) -> [URL] {
        var urls: [URL] = []
        for base in catalog.catalog.baseURLs {
            let directory = base.hasSuffix("/") ? base : base + "/"
            if let url = URL(string: reference.path, relativeTo: URL(string: directory))?.absoluteURL, !urls.contains(url) {
                urls.append(url)
            }
        }
        if let url = URL(string: reference.path, relativeTo: catalog.location)?.absoluteURL, !urls.contains(url) { urls.append(url) }
        return urls
    }

    /// The bytes at `url`, fetched off the cooperative pool with the archives' connection settings.
    nonisolated static func fetch(_ url: URL, transport: TransferSettings) async throws(DownloadError) -> Data {
        try await BlockingCall.run(thread: "iap-manifest") { () throws(DownloadError) in
            try CatalogSource.read(url, transport: transport, what: "manifest")!
        }
    }
}
