/// Where a publisher puts a catalog's signature and history copy beside `catalog.json`, named by the SHA-256 of
/// the catalog's exact bytes.
///
/// `catalog.json` and `catalog.json.sig` are two objects: no object store or CDN replaces both at one instant,
/// so a client reading the pair mid-publish may get a new catalog and the old signature. The signature named
/// by the catalog's hash is written before the catalog and never changes, so a client that fetches
/// `catalog.json` and then `signatures/<sha256>.sig` always gets the signature of the bytes it holds.
extension Catalog {
    /// `signatures/<sha256>.sig`: the signature of the catalog whose bytes hash to `catalogSHA256` (lowercase hex),
    /// relative to the catalog's folder. Same content as that catalog's `catalog.json.sig`.
    public static func signaturePath(catalogSHA256: String) -> String {
        "signatures/\(catalogSHA256).sig"
    }

    /// `catalogs/<sha256>.json`: a published catalog kept by its hash, relative to the catalog's folder: the
    /// history `iapcontent prune` reads to know which archives recent catalogs still name.
    public static func historyPath(catalogSHA256: String) -> String {
        "catalogs/\(catalogSHA256).json"
    }
}

extension CatalogProduct {
    /// The content-addressed files this entry names, relative to the catalog's folder: its archive, its manifest and
    /// its patches — what a publisher uploads before the catalog, and what a prune keeps while a catalog names them.
    public var publishedPaths: [String] {
        [path] + (manifest.map { [$0.path] } ?? []) + (patches ?? []).map(\.path)
    }
}
