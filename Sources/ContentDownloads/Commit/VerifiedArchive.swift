/// A complete archive whose length and SHA-256 match the catalog: the hand-off to the installer.
package struct VerifiedArchive: Sendable, Equatable {
    /// The product identifier.
    package var productID: String
    /// StoreKit's content identifier.
    package var contentIdentifier: String
    /// The content version.
    package var contentVersion: String
    /// The verified archive file, or for a chunk plan the tree built in place.
    package var archivePath: String
    /// Which of the two ``archivePath`` is.
    package var plan: DownloadPlanKind
}

/// The pluggable step after verification (the installer); `finished` is reported once it returns.
/// Throwing a ``DownloadError`` makes the download `failed` with that error.
package typealias PostVerifyStep = @Sendable (VerifiedArchive) async throws -> Void
