public import ContentDelivery
public import Foundation

/// Loads a catalog from a URL (`http`, `https`, `file`) or a path, and resolves archive URLs.
public struct CatalogSource: Sendable {
    /// The catalog.
    public let catalog: Catalog
    /// Where it was loaded from (relative archive paths resolve against it last).
    public let location: URL

    /// The largest catalog accepted (a catalog is a list of products, not content).
    public static let maxCatalogBytes = 16 << 20

    /// Loads and decodes the catalog at `location` (a URL string or a file path), trusting `caFile` for https.
    /// - Throws: ``DownloadError`` with code `.catalog`, naming the location and what to check.
    public static func load(_ location: String, caFile: String? = nil) throws(DownloadError) -> CatalogSource {
        var transport = TransferSettings()
        transport.caFile = caFile
        return try load(location, transport: transport)
    }

    /// Loads and decodes the catalog at `location` (a URL string or a file path) with the same connection
    /// settings as the archives: CA file, proxy, client certificate, User-Agent and extra headers of `transport`.
    ///
    /// Blocks the calling thread for the whole request; from async code use the `async` variant, which
    /// runs it on a thread of its own instead of a cooperative one.
    /// - Throws: ``DownloadError`` with code `.catalog`, naming the location and what to check.
    public static func load(_ location: String, transport: TransferSettings) throws(DownloadError) -> CatalogSource {
        let url = resolve(location)
        let data = try read(url, transport: transport, what: "catalog")!
        return try CatalogSource(data: data, location: url)
    }

    /// A catalog from bytes the service fetched itself (its own HTTP client, a bundled file), decoded as
    /// ``load(_:transport:)-2yqgz`` would; `location` is where they came from: relative archive paths resolve against it.
    ///
    /// No trust check runs here: for a signed catalog use
    /// ``verified(catalogData:signatureData:location:pinnedPublicKeys:store:now:)``.
    /// - Throws: ``DownloadError`` with code `.catalog` when the bytes are not a catalog.
    public init(data: Data, location: URL) throws(DownloadError) {
        do {
            self.init(catalog: try Catalog.decoder.decode(Catalog.self, from: data), location: location)
        } catch {
            throw DownloadError(code: .catalog, message: "\(location.absoluteString) is not a valid catalog: \(error); regenerate it with `iapcontent catalog`")
        }
    }

    /// A catalog already decoded and checked, and where it came from.
    init(catalog: Catalog, location: URL) {
        self.catalog = catalog
        self.location = location
    }

    /// A URL string (`http`, `https`, `file`) as a URL, anything else as a file path.
    static func resolve(_ location: String) -> URL {
        if let parsed = URL(string: location), let scheme = parsed.scheme?.lowercased(),
           ["http", "https", "file"].contains(scheme)
        {
            return parsed
        }
        return URL(fileURLWithPath: location)
    }

    /// The product, or a `.catalog` error listing what the catalog has.
    public func product(_ productID: String) throws(DownloadError) -> CatalogProduct {
        guard let product = catalog.product(productID) else {
            let known = catalog.products.map(\.productID).joined(separator: ", ")
            throw DownloadError(code: .catalog, message: "product \(productID) is not in the catalog \(location.absoluteString) (it has: \(known.isEmpty ? "nothing" : known))")
        }
        return product
    }

    /// The archive URL: `product.url`, else `product.path` against the first base URL, else against the catalog.
    public func archiveURL(for product: CatalogProduct) -> String {
        if let absolute = product.url, !absolute.isEmpty { return absolute }
        for base in catalog.baseURLs {
            let withSlash = base.hasSuffix("/") ? base : base + "/"
            if let baseURL = URL(string: withSlash), let resolved = URL(string: product.path, relativeTo: baseURL) {
                return resolved.absoluteString
            }
        }
        return URL(string: product.path, relativeTo: location)?.absoluteURL.absoluteString
            ?? location.deletingLastPathComponent().appendingPathComponent(product.path).absoluteString
    }
}
