/// What ``ArchiveLayoutRules`` decided about one archive entry.
///
/// The inspector turns each refusal into a problem and goes on to the next entry; the installer
/// stops at the first. The refusals come in the order they are checked, so "the first" means the
/// same thing to both.
package struct ArchiveLayoutVerdict: Sendable, Equatable {
    /// The entry's path as stored, without the trailing `/` of a directory.
    package var path: String
    /// Where the entry sits in the hosted-content layout; `nil` when it lies outside it.
    package var place: ArchiveLayoutPlace?
    /// Every rule the entry breaks, in the order checked; empty when it is accepted.
    package var refusals: [ArchiveLayoutRefusal]

    /// True when the entry breaks no rule.
    package var isAccepted: Bool { refusals.isEmpty }
}

/// The three places an entry of a hosted-content archive may occupy.
package enum ArchiveLayoutPlace: Sendable, Equatable {
    /// `ContentInfo.plist` at the root, a regular file.
    case contentInfo
    /// `Contents` at the root, a directory.
    case contentsDirectory
    /// Anything below `Contents/`.
    case content
}

/// Why ``ArchiveLayoutRules`` refuses an archive entry.
///
/// Each case carries the facts a message needs (the other spelling, the parent concerned), so the
/// inspector and the installer can word the same refusal for their own readers.
package enum ArchiveLayoutRefusal: Sendable, Equatable {
    /// Neither a regular file nor a directory (a link, FIFO, device, socket …).
    case unsupportedKind(ArchiveEntryHeader.Kind)
    /// The name breaks ``PathRules``: every problem it reports, in its order (repeats kept).
    case unsafeName([String])
    /// An entry that is not a directory has a name ending in `/`.
    case nonDirectoryEndsInSlash
    /// Not `ContentInfo.plist` (a regular file) or `Contents` (a directory) at the root, nor below `Contents/`.
    case outsideLayout
    /// A parent directory of the path was an earlier entry that is not a directory.
    case parentIsNotDirectory(parent: String)
    /// A parent directory of the path is spelled `parent` here but `other` earlier; they differ
    /// only by case or Unicode normalization.
    case parentCollides(parent: String, other: String)
    /// The path differs from the earlier path `other` only by case or Unicode normalization.
    case collides(other: String)
    /// The path is already in the archive, as an entry or as the parent directory of one that a
    /// non-directory would now replace.
    case duplicate
}
