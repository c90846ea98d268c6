public import ContentDelivery
internal import CCurl
public import Foundation

/// Loads a catalog from a URL (`http`, `https`, `file`) or a path, and resolves archive URLs.
public struct CatalogSource: Sendable {
    /// The catalog.
    public let catalog: Catalog
    /// Where it was loaded from (relative archive paths resolve against it last).
    public let location: URL

    /// The largest catalog accepted (a catalog is a list of products, not content).
    public static let maxCatalogBytes = 16 << 20

    /// Loads and decodes the catalog at `location` (a URL string or a file path).
    /// - Throws: ``DownloadError`` with code `.catalog`, naming the location and what to check.
    public static func load(_ location: String, caFile: String? = nil) throws(DownloadError) -> CatalogSource {
        let url = resolve(location)
        let data = try read(url, caFile: caFile, what: "catalog")!
        do {
            let catalog = try Catalog.decoder.decode(Catalog.self, from: data)
            return CatalogSource(catalog: catalog, location: url)
        } catch {
            throw DownloadError(code: .catalog, message: "\(url.absoluteString) is not a valid catalog: \(error); regenerate it with `iapcontent catalog`")
        }
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

    /// The bytes at `url` (at most ``maxCatalogBytes``); `nil` for a missing file or HTTP 404/410
    /// when `allowMissing`, otherwise a `.catalog` error naming `what`.
    static func read(_ url: URL, caFile: String?, what: String, allowMissing: Bool = false) throws(DownloadError) -> Data? {
        if url.isFileURL {
            if allowMissing, !FileManager.default.fileExists(atPath: url.path) { return nil }
            do { return try Data(contentsOf: url) } catch {
                throw DownloadError(code: .catalog, message: "cannot read the \(what) \(url.path): \(error.localizedDescription); check the path")
            }
        }
        let (status, data) = try fetch(url, caFile: caFile)
        if allowMissing, status == 404 || status == 410 { return nil }
        guard (200..<300).contains(status) else {
            throw DownloadError(code: .catalog, message: "cannot fetch the \(what): HTTP \(status) for \(url.absoluteString); check the URL")
        }
        return data
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

    private static func fetch(_ url: URL, caFile: String?) throws(DownloadError) -> (status: Int, data: Data) {
        final class Sink {
            var data = Data()
            var overflow = false
        }
        let sink = Sink()
        var status = 0
        do {
            let easy = try EasyHandle()
            try easy.setURL(url.absoluteString)
            try easy.set(CURLOPT_NOSIGNAL, 1)
            try easy.set(CURLOPT_FOLLOWLOCATION, 1)
            try easy.set(CURLOPT_MAXREDIRS, 5)
            try easy.set(CURLOPT_CONNECTTIMEOUT, 15)
            try easy.set(CURLOPT_TIMEOUT, 60)
            if let caFile { try easy.set(CURLOPT_CAINFO, caFile) }
            try easy.set(pointer: CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
            _ = CCurl_easy_setopt_write_function(easy.raw, CURLOPT_WRITEFUNCTION) { data, size, count, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                let n = size * count
                guard sink.data.count + n <= CatalogSource.maxCatalogBytes else {
                    sink.overflow = true
                    return 0
                }
                if let data { sink.data.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: n) }
                return n
            }
            try easy.perform()
            status = easy.responseCode
        } catch {
            if sink.overflow {
                throw DownloadError(code: .catalog, message: "the catalog at \(url.absoluteString) is larger than \(maxCatalogBytes) bytes; check the URL")
            }
            throw DownloadError(code: .catalog, message: "cannot fetch the catalog: \(error); check the URL and the network")
        }
        return (status, sink.data)
    }
}
