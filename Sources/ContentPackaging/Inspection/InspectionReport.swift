/// What `inspect` found in an archive, and everything wrong with it.
public struct InspectionReport: Sendable {
    /// The archive's `ContentInfo.plist`, when present and valid.
    public var contentInfo: ContentInfo?
    /// Archive size in bytes.
    public var archiveSize: Int64
    /// Lowercase hex SHA-256 of the archive bytes.
    public var archiveSHA256: String
    /// Number of entries (files and directories).
    public var entryCount: Int
    /// Every regular file with its size and SHA-256, in archive order.
    public var files: [PackageManifest.File]
    /// Every directory entry's path (no trailing `/`), in archive order.
    public var directories: [String] = []
    /// Whether a manifest was found beside the archive and compared.
    public var manifestChecked: Bool
    /// Every problem (structure, names, manifest mismatches); empty means a valid package.
    public var problems: [ValidationProblem]

    /// Sum of the regular files' sizes.
    public var uncompressedSize: Int64 { files.reduce(0) { $0 + $1.size } }
    /// Whether the archive holds a valid package (and matches its manifest, if one was found).
    public var isValid: Bool { problems.isEmpty && contentInfo != nil }
}
