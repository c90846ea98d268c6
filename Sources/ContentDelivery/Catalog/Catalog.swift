public import Foundation
public import ContentPackaging

/// The list of products a publisher hosts: the one document a client fetches first.
///
/// A catalog folder is static and content-addressed (`catalog.json` + `archives/<sha256>.tar.zst`),
/// so any web server or CDN can host it unchanged. Archive locations are resolved in this order:
/// a product's absolute ``CatalogProduct/url``; otherwise its relative ``CatalogProduct/path``
/// against each of ``baseURLs`` in turn (mirrors); otherwise against the catalog's own location.
///
/// `schema` versions the format. `catalogVersion`, `issuedAt` and `expires` protect against
/// rollback and freeze attacks once the catalog is signed (see `catalog.json.sig`).
public struct Catalog: Codable, Sendable, Equatable {
    /// The format version this code writes and reads.
    public static let currentSchema = 1

    /// Format version of this document.
    public var schema: Int
    /// Monotonic publisher-chosen number; clients refuse a lower one than they have seen.
    public var catalogVersion: UInt64
    /// When the publisher issued this catalog.
    public var issuedAt: Date?
    /// After this instant clients refuse the catalog (freeze protection). `nil` = never expires.
    public var expires: Date?
    /// Mirror base URLs the relative archive paths resolve against, tried in order.
    public var baseURLs: [String]
    /// Every hosted product, sorted by product identifier.
    public var products: [CatalogProduct]

    /// Creates a catalog.
    public init(
        schema: Int = Catalog.currentSchema, catalogVersion: UInt64 = 1, issuedAt: Date? = nil,
        expires: Date? = nil, baseURLs: [String] = [], products: [CatalogProduct]
    ) {
        self.schema = schema
        self.catalogVersion = catalogVersion
        self.issuedAt = issuedAt
        self.expires = expires
        self.baseURLs = baseURLs
        self.products = products
    }

    /// The entry for `productID`, if hosted.
    public func product(_ productID: String) -> CatalogProduct? {
        products.first { $0.productID == productID }
    }

    /// The standard file name of a catalog inside its folder.
    public static let fileName = "catalog.json"
    /// The detached-signature file name beside the catalog.
    public static let signatureFileName = "catalog.json.sig"
}

/// One hosted product: where its archive lives and what it must hash to.
///
/// `length` and `sha256` bind the archive to this (signed) catalog: a client never accepts more
/// than `length` bytes and never installs bytes whose SHA-256 differs. `uncompressedSize` and
/// `entryCount` cap extraction (compression bombs).
public struct CatalogProduct: Codable, Sendable, Equatable {
    /// The product identifier (`IAPProductIdentifier`).
    public var productID: String
    /// StoreKit's content identifier; one hosted content per product, so equal to `productID`.
    public var contentIdentifier: String
    /// The `ContentVersion` of the packed content.
    public var contentVersion: ContentVersion
    /// Archive location relative to the catalog folder or a mirror (`archives/<sha256>.tar.zst`).
    public var path: String
    /// Absolute archive URL, when the publisher pinned one (`--base-url`); overrides `path`.
    public var url: String?
    /// Exact archive size in bytes.
    public var length: Int64
    /// Lowercase hex SHA-256 of the archive bytes.
    public var sha256: String
    /// Sum of the sizes of every file inside the archive.
    public var uncompressedSize: Int64
    /// Number of entries (files and directories) inside the archive.
    public var entryCount: Int
    /// Archive format; `tar.zst` today.
    public var format: String
    /// The package manifest, published content-addressed beside the archive, for a chunk-indexed
    /// (schema 2) archive: its SHA-256 here binds the manifest, and through it every chunk's SHA-256,
    /// to this signed catalog. `nil` for a schema-1 archive.
    public var manifest: ManifestReference?
    /// Precomputed patches to this version from older ones, by ascending ``PatchReference/fromVersion``; `nil`
    /// when the publisher made none (clients before patches ignore the key).
    public var patches: [PatchReference]?

    /// Creates a product entry.
    public init(
        productID: String, contentIdentifier: String? = nil, contentVersion: ContentVersion,
        path: String, url: String? = nil, length: Int64, sha256: String,
        uncompressedSize: Int64, entryCount: Int, format: String = "tar.zst"
    ) {
        self.productID = productID
        self.contentIdentifier = contentIdentifier ?? productID
        self.contentVersion = contentVersion
        self.path = path
        self.url = url
        self.length = length
        self.sha256 = sha256
        self.uncompressedSize = uncompressedSize
        self.entryCount = entryCount
        self.format = format
    }
}
