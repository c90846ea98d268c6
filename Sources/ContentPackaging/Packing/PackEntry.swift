/// One entry as the packer writes it: its path as the `String` the manifest keeps (one copy for the header,
/// the reader's messages and the manifest), its kind and size.
///
/// The validator's ``FolderEntry`` holds raw path bytes; the packer turns the list into these once and lets
/// it go, so a hundred thousand paths are held once, not as bytes and as text.
struct PackEntry: Sendable {
    /// Path relative to the package root, valid UTF-8 (validation refused anything else).
    let path: String
    /// Regular file or directory.
    let kind: FolderEntry.Kind
    /// Size in bytes for a regular file, 0 for a directory.
    let size: Int64

    init(_ entry: FolderEntry) {
        path = entry.path
        kind = entry.kind
        size = entry.size
    }

    /// The path's bytes, for a header or a check; made when asked.
    var pathBytes: [UInt8] { Array(path.utf8) }
}
