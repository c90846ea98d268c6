public import Foundation

/// What an import wrote: the content folder, what it holds, and what was left out.
public struct ImportResult: Sendable {
    /// The kind of source that was read.
    public var sourceKind: ImportSourceKind
    /// The content folder (`--output`), valid for ``PackageValidator`` and ready for ``Packer``.
    public var folder: URL
    /// The `ContentInfo.plist` as imported (its bytes are the source's, unchanged).
    public var contentInfo: ContentInfo
    /// Regular files written.
    public var fileCount: Int
    /// Their total size in bytes.
    public var totalBytes: Int64
    /// Entries dropped, one line each (`.DS_Store`, `._*` resource forks, executable code).
    public var notes: [ImportNote]
}

/// The three sources `iapcontent import` reads.
public enum ImportSourceKind: String, Sendable, Equatable, CustomStringConvertible {
    /// What an Xcode "In-App Purchase Content" target builds: `<Name>/ContentInfo.plist` + `<Name>/Contents/…`.
    case builtTarget = "built content folder"
    /// An Xcode project holding such a target: its `ContentInfo.plist` and the files of its Resources build phase.
    case xcodeProject = "Xcode project"
    /// The package uploaded to App Store Connect (`productbuild --content`): a xar product archive whose
    /// component's `Payload` (gzip'd cpio) holds the content folder.
    case productArchive = "installer package"

    /// A human name used in messages.
    public var description: String { rawValue }
}
