import Glibc

/// Lists every object under a folder with `opendir`/`readdir`/`lstat`, working on raw name bytes.
///
/// Raw bytes matter: a name that is not valid UTF-8 must still be found (and reported), which
/// `FileManager`'s `String` paths cannot do. Symbolic links are reported, never followed.
package enum FolderWalker {
    /// A failure to read a directory, with the path and `errno`.
    package struct Failure: Error {
        /// The path, relative to the root walked.
        package var pathBytes: [UInt8]
        /// Why it could not be read.
        package var errno: Int32
    }

    /// `lstat` of `path` (absolute or relative to the working directory), as raw bytes.
    static func status(of path: [UInt8]) -> stat? {
        var info = stat()
        let result = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) }
        }
        return result == 0 ? info : nil
    }

    /// The kind of object `info` describes.
    static func kind(of info: stat) -> FolderEntry.Kind {
        switch info.st_mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFLNK: .symlink
        case S_IFIFO: .fifo
        case S_IFSOCK: .socket
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        default: .unknown
        }
    }

    /// Every entry below `root` (not `root` itself), depth first; directories are descended.
    ///
    /// `skip` is asked about each name (raw bytes) before anything else; skipped names are not
    /// listed or descended. Unreadable directories are collected in `failures`.
    static func walk(
        root: [UInt8], skip: ([UInt8], [UInt8]) -> Bool, failures: inout [Failure]
    ) -> [FolderEntry] {
        var entries: [FolderEntry] = []
        visit(root: root, skip: skip, failures: &failures) { relative, kind, size in
            entries.append(FolderEntry(pathBytes: relative, kind: kind, size: size))
        }
        return entries
    }

    /// Hands every entry below `root` (not `root` itself) to `visit`, depth first, as ``walk(root:skip:failures:)``
    /// lists them — its path relative to `root`, its kind, its size for a regular file (else 0) — keeping none: a
    /// check of a million installed files holds one path at a time.
    package static func visit(
        root: [UInt8], skip: ([UInt8], [UInt8]) -> Bool = { _, _ in false }, failures: inout [Failure],
        _ visit: (_ relative: [UInt8], _ kind: FolderEntry.Kind, _ size: Int64) -> Void
    ) {
        var pending: [[UInt8]] = [[]]
        while let relative = pending.popLast() {
            let directory = relative.isEmpty ? root : root + [UInt8(ascii: "/")] + relative
            let stream = (directory + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { opendir($0.baseAddress!) }
            }
            guard let stream else {
                failures.append(Failure(pathBytes: relative, errno: errno))
                continue
            }
            defer { closedir(stream) }
            while let item = readdir(stream) {
                let name: [UInt8] = withUnsafeBytes(of: item.pointee.d_name) { raw in
                    Array(raw.prefix(while: { $0 != 0 }))
                }
                if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
                let childRelative = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
                if skip(childRelative, name) { continue }
                // Relative to the open directory: the kernel does not walk the whole path again.
                var info = stat()
                let result = (name + [0]).withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        fstatat(dirfd(stream), $0.baseAddress!, &info, AT_SYMLINK_NOFOLLOW)
                    }
                }
                guard result == 0 else {
                    failures.append(Failure(pathBytes: childRelative, errno: errno))
                    continue
                }
                let kind = kind(of: info)
                visit(childRelative, kind, kind == .regular ? Int64(info.st_size) : 0)
                if kind == .directory { pending.append(childRelative) }
            }
        }
    }
}
