/// Where a product's manifest is published and what it must hash to: `manifests/<sha256>.manifest` (the
/// compact format), or a JSON manifest at `manifests/<sha256>.manifest.json`, which clients read too.
public struct ManifestReference: Codable, Sendable, Equatable {
    /// Location relative to the catalog folder or a mirror, like ``CatalogProduct/path``.
    public var path: String
    /// Exact size of the manifest in bytes.
    public var length: Int64
    /// Lowercase hex SHA-256 of the manifest bytes.
    public var sha256: String

    /// A reference to the manifest at `path` of `length` bytes hashing to `sha256`.
    public init(path: String, length: Int64, sha256: String) {
        self.path = path
        self.length = length
        self.sha256 = sha256
    }
}
