extension ArchiveLayoutRefusal {
    /// How `iapcontent inspect` words this refusal for a publisher: one message per problem (a
    /// name may break several ``PathRules`` at once), each read after the entry's path.
    ///
    /// - Parameter kind: the refused entry's kind, which some messages name.
    func inspectionMessages(kind: ArchiveEntryHeader.Kind) -> [String] {
        let ignoringCase = "when case and Unicode normalization are ignored"
        switch self {
        case .unsupportedKind:
            return ["is a \(kind) entry; only regular files and directories are allowed"]
        case .unsafeName(let problems):
            return problems
        case .nonDirectoryEndsInSlash:
            return ["is a \(kind) but its name ends in '/'"]
        case .outsideLayout:
            return ["\(kind) is not allowed here; the root holds only ContentInfo.plist and Contents/"]
        case .parentIsNotDirectory(let parent):
            return ["'\(parent)' is not a directory but this entry uses it as one"]
        case .parentCollides(let parent, let other):
            return ["'\(parent)' collides with '\(other)' \(ignoringCase)"]
        case .collides(let other):
            return ["collides with '\(other)' \(ignoringCase)"]
        case .duplicate:
            return ["appears more than once in the archive"]
        }
    }
}
