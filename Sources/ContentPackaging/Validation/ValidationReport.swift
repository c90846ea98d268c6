/// The outcome of validating a content folder: every problem at once, plus what would be packed.
public struct ValidationReport: Sendable {
    /// The parsed `ContentInfo.plist`, when it was readable and valid.
    public var contentInfo: ContentInfo?
    /// Every problem found, sorted byte-wise by path. Empty means the folder can be packed.
    public var problems: [ValidationProblem]
    /// Things skipped without failing (OS litter such as `.DS_Store`), one line each.
    public var notes: [String]
    /// What a pack would store, sorted byte-wise by path: `ContentInfo.plist`, `Contents`, `Contents/...`.
    ///
    /// Only regular files and directories; OS litter left out.
    public var entries: [FolderEntry]
    /// The packs and variant axes `ContentInfo.plist` declares, when it declares any (checked against the paths).
    public var packs: PackDeclaration?

    /// Whether the folder is a valid package.
    public var isValid: Bool { problems.isEmpty && contentInfo != nil }
    /// Number of regular files in ``entries``.
    public var fileCount: Int { entries.count { $0.kind == .regular } }
    /// Total bytes of the regular files in ``entries``.
    public var totalBytes: Int64 { entries.reduce(0) { $0 + $1.size } }
}
