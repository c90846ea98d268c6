public import Foundation

extension CatalogProduct {
    /// Every URL the archive may be fetched from, best first, without duplicates.
    ///
    /// Order: the absolute ``url`` when the publisher pinned one; then ``path`` resolved against
    /// each mirror in `baseURLs` in turn; then ``path`` resolved against the catalog's own location.
    /// Every candidate must deliver the same bytes (the client checks ``length`` and ``sha256``), so
    /// a transfer engine may fail over from one to the next freely.
    ///
    /// - Parameters:
    ///   - catalogURL: Where `catalog.json` was fetched from.
    ///   - baseURLs: The catalog's mirror list (``Catalog/baseURLs``).
    /// - Returns: Candidate archive URLs; never empty unless ``path`` cannot form a URL and no ``url`` is set.
    public func archiveURLs(catalogURL: URL, baseURLs: [String] = []) -> [URL] {
        var candidates: [URL] = []
        func add(_ url: URL?) {
            guard let url, !candidates.contains(url) else { return }
            candidates.append(url)
        }
        if let url, let absolute = URL(string: url), absolute.scheme != nil {
            add(absolute)
        }
        for base in baseURLs {
            let directory = base.hasSuffix("/") ? base : base + "/"
            add(URL(string: path, relativeTo: URL(string: directory))?.absoluteURL)
        }
        add(URL(string: path, relativeTo: catalogURL)?.absoluteURL)
        return candidates
    }
}

extension Catalog {
    /// Candidate archive URLs for `product`, using this catalog's mirrors (``baseURLs``).
    ///
    /// See ``CatalogProduct/archiveURLs(catalogURL:baseURLs:)`` for the order.
    public func archiveURLs(for product: CatalogProduct, catalogURL: URL) -> [URL] {
        product.archiveURLs(catalogURL: catalogURL, baseURLs: baseURLs)
    }
}
