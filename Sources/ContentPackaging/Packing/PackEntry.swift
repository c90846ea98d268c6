/// One entry as the packer writes it: its path as the manifest keeps it (one ``StoredPath`` for the header,
/// the reader's messages and the manifest's file record), its kind and size.
///
/// The validator's ``FolderEntry`` holds each path in an array of its own; the packer turns the list into these
/// once (``list(_:)``, every path in one shared buffer) and lets it go, so a hundred thousand paths are held once,
/// in one allocation.
struct PackEntry: Sendable {
    /// Path relative to the package root, valid UTF-8 (validation refused anything else).
    let storedPath: StoredPath
    /// Regular file or directory.
    let kind: FolderEntry.Kind
    /// Size in bytes for a regular file, 0 for a directory.
    let size: Int64

    /// An entry for `entry`, its path sharing the entry's bytes.
    init(_ entry: FolderEntry) {
        self.init(storedPath: StoredPath(bytes: entry.pathBytes), kind: entry.kind, size: entry.size)
    }

    /// An entry of a path the caller holds.
    init(storedPath: StoredPath, kind: FolderEntry.Kind, size: Int64) {
        self.storedPath = storedPath
        self.kind = kind
        self.size = size
    }

    /// The entries for `entries`, in order, every path in one buffer (the list's own arrays are not kept).
    static func list(_ entries: [FolderEntry]) -> [PackEntry] {
        var builder = StoredPath.Builder(paths: entries.count, bytes: entries.reduce(0) { $0 + $1.pathBytes.count })
        for entry in entries { builder.append(entry.pathBytes) }
        var index = 0
        return builder.finish { path in
            defer { index += 1 }
            return PackEntry(storedPath: path, kind: entries[index].kind, size: entries[index].size)
        }
    }

    /// The path as text, for messages and the file's location; made when asked.
    var path: String { storedPath.string }

    /// The path's bytes, for a header; made when asked.
    var pathBytes: [UInt8] { Array(storedPath.utf8) }
}
