/// A complete archive whose length and SHA-256 match the catalog: the hand-off to the installer.
public struct VerifiedArchive: Sendable, Equatable {
    /// The product identifier.
    public var productID: String
    /// StoreKit's content identifier.
    public var contentIdentifier: String
    /// The content version.
    public var contentVersion: String
    /// The verified archive file.
    public var archivePath: String
}

/// The pluggable step after verification (the installer); `finished` is reported once it returns.
/// Throwing a ``DownloadError`` makes the download `failed` with that error.
public typealias PostVerifyStep = @Sendable (VerifiedArchive) async throws -> Void
