/// Size and SHA-256 of a finished archive, computed while it was written.
public struct ArchiveDigest: Sendable, Equatable {
    /// Archive size in bytes.
    public var size: Int64
    /// Lowercase hex SHA-256 of the archive bytes.
    public var sha256: String

    /// Creates a digest.
    public init(size: Int64, sha256: String) {
        self.size = size
        self.sha256 = sha256
    }
}
