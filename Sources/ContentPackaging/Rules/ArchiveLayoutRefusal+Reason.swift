extension ArchiveLayoutRefusal {
    /// Why an entry is refused, in the words the installer and `iapcontent import` both use: read after
    /// the entry's name (`'Contents/x': <reason>`).
    ///
    /// - Parameters:
    ///   - kind: the refused entry's kind, which some reasons name.
    ///   - linkTarget: the target of a refused link, named in its reason.
    package func reason(kind: ArchiveEntryHeader.Kind, linkTarget: String?) -> String {
        let collisionSuffix = "on case-insensitive or normalizing file systems"
        switch self {
        case .unsupportedKind(.symlink), .unsupportedKind(.hardlink):
            return "is a \(kind) to '\(linkTarget ?? "")'; links are never installed"
        case .unsupportedKind(let kind):
            return "is a \(kind); only regular files and directories are installed"
        case .unsafeName(let problems):
            var unique: [String] = []
            for problem in problems where !unique.contains(problem) { unique.append(problem) }
            return unique.joined(separator: "; ")
        case .nonDirectoryEndsInSlash:
            return "a file name ends in '/'"
        case .outsideLayout:
            return "is outside the hosted-content layout (only ContentInfo.plist and Contents/ are allowed)"
        case .parentIsNotDirectory(let parent):
            return "'\(parent)' is a file but this entry uses it as a directory"
        case .parentCollides(let parent, let other):
            return "'\(parent)' collides with '\(other)' \(collisionSuffix)"
        case .collides(let other):
            return "collides with '\(other)' \(collisionSuffix)"
        case .duplicate:
            return "duplicate entry (the archive holds this path twice)"
        }
    }
}
