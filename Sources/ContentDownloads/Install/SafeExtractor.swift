public import ContentPackaging
import Glibc

/// Writes an archive's entries into a staging directory itself — never through `archive_write_disk`.
///
/// Every path is walked component by component from the staging directory's descriptor with
/// `O_NOFOLLOW|O_DIRECTORY`, directories are made with `mkdirat(0755)` and files with
/// `openat(O_CREAT|O_EXCL|O_NOFOLLOW|O_WRONLY, 0644)`, so nothing can be written outside the
/// staging directory or through a link, and nothing is overwritten. Owners, permissions, ACLs,
/// extended attributes and times from the archive are never restored. Data streams in fixed-size
/// blocks (flat memory) and is counted: an entry may not exceed the size the pre-scan accepted,
/// nor the whole archive its cap, whatever the decompressor produces.
///
/// Durability: each file is fsynced before it is closed (so ENOSPC/EIO are attributed to the entry
/// that hit them, on any file system) and every directory is fsynced at the end; `syncfs` would be
/// one call but flushes unrelated data and reports errors less precisely.
public struct SafeExtractor: ~Copyable {
    private let stagingFD: Int32
    private let stagingPath: String
    private let blockSize: Int
    private var createdDirectories: [String] = []

    /// Bytes of file data written so far.
    public private(set) var bytesWritten: Int64 = 0

    /// An extractor writing below the open directory `stagingFD` (not closed by the extractor).
    public init(stagingFD: Int32, stagingPath: String, blockSize: Int = 1 << 16) {
        self.stagingFD = stagingFD
        self.stagingPath = stagingPath
        self.blockSize = blockSize
    }

    /// Extracts every entry of `reader`, which must repeat `plan` exactly (same paths and kinds, in order).
    ///
    /// - Throws: ``InstallError/unsafeEntry(path:reason:)`` when the archive changed since the pre-scan,
    ///   ``InstallError/sizeExceeded(path:declared:written:)`` at the first block beyond a cap,
    ///   ``InstallError/insufficientSpace(needed:available:)`` on ENOSPC/EDQUOT.
    public mutating func extract(
        from reader: inout ArchiveReader, plan: ExtractionPlan, limits: InstallLimits
    ) throws(InstallError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        var index = 0
        while true {
            let header: ArchiveEntryHeader?
            do { header = try reader.nextHeader() } catch { throw .archive(error) }
            guard let header else { break }
            guard index < plan.entries.count else {
                throw .unsafeEntry(path: header.path, reason: Self.changedReason)
            }
            let planned = plan.entries[index]
            index += 1
            var path = header.path
            if path.hasSuffix("/") { path.removeLast() }
            let kind: PlannedEntry.Kind? = header.kind == .regular ? .file : header.kind == .directory ? .directory : nil
            guard kind == planned.kind, Array(path.utf8) == Array(planned.path.utf8) else {
                throw .unsafeEntry(path: header.path, reason: Self.changedReason)
            }
            let components = planned.path.split(separator: "/").map(String.init)
            switch planned.kind {
            case .directory:
                let fd = try openDirectories(components[...])
                close(fd)
            case .file:
                let parent = try openDirectories(components.dropLast())
                defer { close(parent) }
                try writeFile(
                    named: components.last!, in: parent, planned: planned, limits: limits,
                    plan: plan, reader: &reader, buffer: buffer)
                CrashHook.reach(.extract)
            }
        }
        guard index == plan.entries.count else {
            throw .archive(ArchiveError(message: "archive ended after \(index) of \(plan.entries.count) entries", path: stagingPath))
        }
        for directory in createdDirectories.reversed() {
            let fd = try openDirectories(directory.split(separator: "/").map(String.init)[...])
            defer { close(fd) }
            try FileSystemCalls.sync(fd, display: stagingPath + "/" + directory)
        }
        try FileSystemCalls.sync(stagingFD, display: stagingPath)
    }

    private static let changedReason =
        "differs from what the pre-scan saw (the archive file was modified while installing); download it again"

    /// Opens (creating as needed, 0755) the directory `components` below staging; returns an owned fd.
    private mutating func openDirectories(_ components: ArraySlice<String>) throws(InstallError) -> Int32 {
        var current = dup(stagingFD)
        guard current >= 0 else { throw .system(operation: "dup", path: stagingPath, errno: errno) }
        var relative = ""
        for component in components {
            relative = relative.isEmpty ? component : relative + "/" + component
            let display = stagingPath + "/" + relative
            var next: Int32?
            do { next = try FileSystemCalls.openDirectory(in: current, component, display: display) } catch {
                close(current)
                throw error
            }
            if next == nil {
                if mkdirat(current, component, 0o755) != 0 {
                    let code = errno
                    close(current)
                    throw spaceError(code) ?? .system(operation: "mkdir", path: display, errno: code)
                }
                createdDirectories.append(relative)
                do { next = try FileSystemCalls.openDirectory(in: current, component, display: display) } catch {
                    close(current)
                    throw error
                }
                if let next { fchmod(next, 0o755) }
            }
            close(current)
            guard let next else { throw .system(operation: "open directory", path: display, errno: ENOENT) }
            current = next
        }
        return current
    }

    private mutating func writeFile(
        named name: String, in parent: Int32, planned: PlannedEntry, limits: InstallLimits,
        plan: ExtractionPlan, reader: inout ArchiveReader, buffer: UnsafeMutableRawBufferPointer
    ) throws(InstallError) {
        let display = stagingPath + "/" + planned.path
        let fd = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw spaceError(code, plan: plan) ?? .system(operation: "create", path: display, errno: code)
        }
        var closed = false
        defer { if !closed { close(fd) } }
        fchmod(fd, 0o644)
        var written: Int64 = 0
        while true {
            let count: Int
            do { count = try reader.read(into: buffer) } catch { throw .archive(error) }
            if count == 0 { break }
            if written + Int64(count) > planned.size {
                throw .sizeExceeded(path: planned.path, declared: planned.size, written: written + Int64(count))
            }
            if bytesWritten + Int64(count) > limits.maxTotalBytes {
                throw .sizeExceeded(path: "*", declared: limits.maxTotalBytes, written: bytesWritten + Int64(count))
            }
            var offset = 0
            while offset < count {
                let result = Glibc.write(fd, buffer.baseAddress! + offset, count - offset)
                if result < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    throw spaceError(code, plan: plan) ?? .system(operation: "write", path: display, errno: code)
                }
                offset += result
            }
            written += Int64(count)
            bytesWritten += Int64(count)
        }
        guard written == planned.size else {
            throw .archive(ArchiveError(
                message: "entry data ended after \(written) of \(planned.size) declared bytes", path: planned.path))
        }
        if fsync(fd) != 0 {
            let code = errno
            throw spaceError(code, plan: plan) ?? .system(operation: "fsync", path: display, errno: code)
        }
        closed = true
        if close(fd) != 0 {
            let code = errno
            throw spaceError(code, plan: plan) ?? .system(operation: "close", path: display, errno: code)
        }
    }

    /// ENOSPC/EDQUOT → `.insufficientSpace` (needed: the whole plan; available: free now plus what staging holds).
    private func spaceError(_ code: Int32, plan: ExtractionPlan? = nil) -> InstallError? {
        guard code == ENOSPC || code == EDQUOT else { return nil }
        let available = FileSystemCalls.availableBytes(stagingPath) + bytesWritten
        return .insufficientSpace(needed: plan?.totalBytes ?? bytesWritten, available: available)
    }
}
