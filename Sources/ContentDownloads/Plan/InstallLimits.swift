public import ContentDelivery
public import ContentPackaging

/// The caps one archive is held to while it is checked and extracted.
///
/// Taken from what the (signed) catalog promised, optionally tightened by the package manifest,
/// and never above the hard caps: at most ``maxTotalBytesCap`` (1 TiB) and ``maxEntriesCap`` (10 million)
/// entries, which any real package stays far below; a publisher sets a lower cap with `pack --max-size`. Bytes actually written are counted against the same caps, so a size
/// lie or a compression bomb stops at the cap rather than at the end of the disk.
public struct InstallLimits: Sendable, Equatable {
    /// The most content any package may hold: 1 TiB uncompressed (StoreKit stopped at 2 GB; game
    /// launchers ship 5–100 GiB).
    public static let maxTotalBytesCap: Int64 = 1 << 40
    /// Absolute entry-count cap, whatever the catalog says.
    public static let maxEntriesCap = 10_000_000

    /// Most bytes all regular files together may hold.
    public var maxTotalBytes: Int64
    /// Most archive entries (files and directories).
    public var maxEntries: Int
    /// Exact file sizes from the package manifest, keyed by path; `nil` when no manifest was given.
    public var manifestSizes: [String: Int64]?

    /// Explicit caps, clamped to the hard caps.
    public init(maxTotalBytes: Int64, maxEntries: Int, manifestSizes: [String: Int64]? = nil) {
        self.maxTotalBytes = min(max(0, maxTotalBytes), Self.maxTotalBytesCap)
        self.maxEntries = min(max(0, maxEntries), Self.maxEntriesCap)
        self.manifestSizes = manifestSizes
    }

    /// The caps a catalog entry (and optionally its manifest) promise.
    public init(product: CatalogProduct, manifest: PackageManifest? = nil) {
        var sizes: [String: Int64]?
        if let manifest {
            sizes = Dictionary(manifest.files.map { ($0.path, $0.size) }, uniquingKeysWith: { first, _ in first })
        }
        self.init(maxTotalBytes: product.uncompressedSize, maxEntries: product.entryCount, manifestSizes: sizes)
    }
}
