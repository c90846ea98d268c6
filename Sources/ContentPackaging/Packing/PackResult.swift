public import Foundation

/// What a pack wrote: the archive, its manifest, and the manifest's contents.
public struct PackResult: Sendable {
    /// `DIR/<product>-<version>.tar.zst`
    public var archiveURL: URL
    /// `DIR/<product>-<version>.manifest` (compact format; chunk-indexed) or `.manifest.json` (one frame).
    public var manifestURL: URL
    /// The manifest written beside the archive.
    public var manifest: PackageManifest
}
