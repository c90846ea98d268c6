public import ContentPackaging
internal import Foundation

/// What re-hashing an installed product against the manifest it was installed from found: the answer to
/// "are my files intact?" (Steam's "verify integrity of files"), before anything is repaired.
///
/// Every file the manifest lists is read and hashed; files that differ in size or SHA-256 are `damaged`, those
/// absent (or no longer regular files) are `missing`, and regular files the manifest does not list are `extra`.
public struct ContentVerification: Sendable, Equatable, Codable {
    /// The product checked.
    public var productID: String
    /// The version installed (and described by the manifest).
    public var contentVersion: ContentVersion
    /// Files whose size or SHA-256 differ from the manifest, by path (`Contents/…`).
    public var damaged: [String]
    /// Files the manifest lists that are not there.
    public var missing: [String]
    /// Regular files present that the manifest does not list.
    public var extra: [String]
    /// Files checked and bytes read.
    public var filesChecked: Int
    /// Bytes hashed.
    public var bytesChecked: Int64

    /// True when nothing is damaged, missing or extra.
    public var isIntact: Bool { damaged.isEmpty && missing.isEmpty && extra.isEmpty }
}
