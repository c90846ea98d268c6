import Glibc
import SystemSupport

/// Entries read from the disk, for the two folder sources (a built content folder, an Xcode project).
enum DiskEntries {
    /// The header of the object at `path` (never followed if it is a link), placed at `layoutPath`.
    static func header(of path: [UInt8], at layoutPath: [UInt8]) -> ArchiveEntryHeader? {
        guard let info = FolderWalker.status(of: path) else { return nil }
        let kind = headerKind(FolderWalker.kind(of: info))
        var target: String?
        if kind == .symlink {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = (path + [0]).withUnsafeBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { readlink($0.baseAddress!, &buffer, buffer.count - 1) }
            }
            target = count >= 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        }
        return ArchiveEntryHeader(
            pathBytes: layoutPath, kind: kind, size: kind == .regular ? Int64(info.st_size) : 0,
            permissions: UInt32(info.st_mode & 0o7777), linkTarget: target)
    }

    /// The archive-header kind of a folder entry kind.
    static func headerKind(_ kind: FolderEntry.Kind) -> ArchiveEntryHeader.Kind {
        switch kind {
        case .regular: .regular
        case .directory: .directory
        case .symlink: .symlink
        case .fifo: .fifo
        case .socket: .socket
        case .characterDevice: .characterDevice
        case .blockDevice: .blockDevice
        case .unknown: .unknown(0)
        }
    }

    /// Adds the object at `path` as `layoutPath`, and, for a folder, everything below it.
    static func add(
        _ path: [UInt8], as layoutPath: [UInt8], origin: String, to staging: inout ImportStaging
    ) throws(ImportError) {
        guard let header = header(of: path, at: layoutPath) else {
            staging.refuse(origin, reason: "cannot be read (\(String(cString: strerror(errno)))); check that it exists and its permissions")
            return
        }
        try addOne(path, header: header, origin: origin, to: &staging)
        if header.kind == .directory { try addTree(below: path, at: layoutPath, origin: origin, to: &staging) }
    }

    /// Adds everything below the folder at `path` (not the folder itself), byte-wise sorted by path, placed
    /// under `layoutPath` (the layout root when empty).
    static func addTree(
        below path: [UInt8], at layoutPath: [UInt8], origin: String, to staging: inout ImportStaging
    ) throws(ImportError) {
        var failures: [FolderWalker.Failure] = []
        let found = FolderWalker.walk(root: path, skip: { _, _ in false }, failures: &failures)
        for failure in failures {
            staging.refuse(
                origin + "/" + String(decoding: failure.pathBytes, as: UTF8.self),
                reason: "cannot be read (\(String(cString: strerror(failure.errno)))); check its permissions")
        }
        let prefix = layoutPath.isEmpty ? [] : layoutPath + [UInt8(ascii: "/")]
        for entry in found.sorted(by: { $0.pathBytes.lexicographicallyPrecedes($1.pathBytes) }) {
            let entryPath = path + [UInt8(ascii: "/")] + entry.pathBytes
            guard let header = header(of: entryPath, at: prefix + entry.pathBytes) else { continue }
            try addOne(entryPath, header: header, origin: origin + "/" + entry.path, to: &staging)
        }
    }

    /// Offers one entry, copying the file's bytes when it is kept.
    private static func addOne(
        _ path: [UInt8], header: ArchiveEntryHeader, origin: String, to staging: inout ImportStaging
    ) throws(ImportError) {
        try staging.add(header, origin: origin) { sink throws(ImportError) in
            try copy(path, display: origin, into: &sink)
        }
    }

    /// Copies the regular file at `path` (not following a link) into `sink`.
    static func copy(_ path: [UInt8], display: String, into sink: inout ImportFileSink) throws(ImportError) {
        let fd = (path + [0]).withUnsafeBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        }
        guard fd >= 0 else { throw .system(FileSystemError(operation: "open", path: display, errno: errno)) }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .system(FileSystemError(operation: "read", path: display, errno: errno)) }
            if count == 0 { return }
            try sink.write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }
}
