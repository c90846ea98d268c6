public import Foundation
public import ContentPackaging

/// What `catalog` wrote: the catalog, its signature, and which inputs it skipped.
public struct CatalogBuildResult: Sendable {
    /// An input archive left out because a higher version of the same product was present.
    public struct Superseded: Sendable, Equatable {
        /// The product both archives belong to.
        public var productID: String
        /// The version left out.
        public var skipped: ContentVersion
        /// The version published instead.
        public var kept: ContentVersion
        /// The skipped archive file name.
        public var archive: String
    }

    /// The published catalog.
    public var catalog: Catalog
    /// The exact bytes of `catalog.json`.
    public var catalogData: Data
    /// The detached signature, when a signing key was given.
    public var signature: CatalogSignature?
    /// Inputs left out in favour of a higher version.
    public var superseded: [Superseded]
    /// `<output>/catalog.json`.
    public var catalogURL: URL
}
