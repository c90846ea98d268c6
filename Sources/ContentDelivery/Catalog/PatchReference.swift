public import ContentPackaging

/// A precomputed patch a catalog offers for updating to a product's current version from an older one
/// (`iapcontent patch`; docs/MANIFEST-FORMAT.md, "Patches"), published content-addressed as
/// `patches/<sha256>.patch`: a client whose installed manifest has ``fromManifestSHA256`` fetches this one file
/// instead of the new manifest and the changed chunks. Its length and SHA-256 bind it to this signed catalog.
public struct PatchReference: Codable, Sendable, Equatable {
    /// The version it updates from.
    public var fromVersion: ContentVersion
    /// Lowercase hex SHA-256 of that version's manifest, byte for byte as published.
    public var fromManifestSHA256: String
    /// Location relative to the catalog folder or a mirror, like ``CatalogProduct/path``.
    public var path: String
    /// Exact size in bytes.
    public var length: Int64
    /// Lowercase hex SHA-256 of the patch's bytes.
    public var sha256: String

    /// A reference to the patch at `path` from `fromVersion` (whose manifest hashes to `fromManifestSHA256`).
    public init(fromVersion: ContentVersion, fromManifestSHA256: String, path: String, length: Int64, sha256: String) {
        self.fromVersion = fromVersion
        self.fromManifestSHA256 = fromManifestSHA256
        self.path = path
        self.length = length
        self.sha256 = sha256
    }
}
