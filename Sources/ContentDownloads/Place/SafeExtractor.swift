internal import SystemSupport
internal import CLinuxSystem
package import ContentPackaging
import Glibc

/// Writes an archive's entries into a staging directory itself — never through `archive_write_disk`.
///
/// Every path is walked component by component from the staging directory's descriptor with
/// `O_NOFOLLOW|O_DIRECTORY`, directories are made with `mkdirat(0755)` and files with
/// `openat(O_CREAT|O_EXCL|O_NOFOLLOW|O_WRONLY, 0644)`, so nothing can be written outside the
/// staging directory or through a link, and nothing is overwritten. A hard link (an identical file
/// `pack` stored once) is made with `linkat` between folders opened the same way, only to a regular
/// file the policy admitted earlier from this archive, and only while it is one in staging (its folder,
/// created here, is fsynced with the others). Owners, permissions, ACLs, extended attributes and times
/// from the archive are never restored. Data streams in one page-aligned 1 MiB block (flat memory)
/// and is counted: an entry may not exceed the size the pre-scan accepted, nor the whole archive its
/// cap, whatever the decompressor produces. Whole
/// blocks of large files are written with `O_DIRECT` (``DirectIO``): the page-cache copy was the
/// largest cost of installing a 1 GiB package, and the data is fsynced anyway.
///
/// Durability: a file of at least ``StagingTree/smallFileBytes`` is fsynced before it is closed (so
/// ENOSPC/EIO are attributed to the entry that hit them), in batches: its writeback starts when its last
/// byte is written and the fsync comes later (``PendingFileSyncs``), so many files' writes are in flight
/// at once. A smaller file is closed when written and the extraction ends with one `syncfs` of the staging
/// folder's file system, which makes those files and every created folder durable together: a writeback
/// and an fsync each is an I/O submission (and a journal commit) per file, most of the cost of installing
/// many small files, as in ``StagingTree``. Without small files every directory is fsynced at the end.
/// Either way everything is durable before ``extract(from:plan:limits:)`` returns, so before the caller's
/// rename makes the folder visible.
package struct SafeExtractor: ~Copyable {
    private let stagingFD: Int32
    private let stagingPath: String
    private let blockSize: Int
    private var createdDirectories: [String] = []
    /// Small files closed without an fsync of their own, made durable by the extraction's closing `syncfs`.
    private var unsyncedSmallFiles = 0

    /// Bytes of file data written so far.
    package private(set) var bytesWritten: Int64 = 0

    /// An extractor writing below the open directory `stagingFD` (not closed by the extractor).
    package init(stagingFD: Int32, stagingPath: String, blockSize: Int = 1 << 20) {
        self.stagingFD = stagingFD
        self.stagingPath = stagingPath
        self.blockSize = blockSize
    }

    /// Extracts every entry of `reader`, which must repeat `plan` exactly (same paths and kinds, in order).
    ///
    /// - Throws: ``InstallError/unsafeEntry(path:reason:)`` when the archive changed since the pre-scan,
    ///   ``InstallError/sizeExceeded(path:declared:written:)`` at the first block beyond a cap,
    ///   ``InstallError/insufficientSpace(needed:available:)`` on ENOSPC/EDQUOT.
    package mutating func extract(
        from reader: inout ArchiveReader, plan: ExtractionPlan, limits: InstallLimits
    ) throws(InstallError) {
        var index = 0
        try extractEntries(from: &reader, limits: limits, expectedTotal: plan.totalBytes) { header throws(InstallError) in
            guard index < plan.entries.count else {
                throw .unsafeEntry(path: header.path, reason: Self.changedReason)
            }
            let planned = plan.entries[index]
            index += 1
            var path = header.path
            if path.hasSuffix("/") { path.removeLast() }
            let kind: PlannedEntry.Kind? = switch header.kind {
            case .regular: .file
            case .directory: .directory
            case .hardlink: .link
            default: nil
            }
            guard kind == planned.kind, Array(path.utf8) == Array(planned.path.utf8),
                  kind != .link || header.linkTarget == planned.linkTarget
            else {
                throw .unsafeEntry(path: header.path, reason: Self.changedReason)
            }
            return planned
        }
        guard index == plan.entries.count else {
            throw .archive(ArchiveError(message: "archive ended after \(index) of \(plan.entries.count) entries", path: stagingPath))
        }
    }

    /// Extracts while checking each header with `policy` just before its entry is written — the
    /// streaming form, for an archive that is still arriving (no pre-scan is possible).
    ///
    /// Every rule of the pre-scan applies, entry by entry; an entry that breaks one stops the
    /// extraction before anything of it is written (what was written stays in private staging,
    /// which the caller deletes). Returns the plan of what was extracted.
    package mutating func extract(
        from reader: inout ArchiveReader, admitting policy: inout EntryPolicy
    ) throws(InstallError) -> ExtractionPlan {
        try extractEntries(from: &reader, limits: policy.limits, expectedTotal: policy.limits.maxTotalBytes) {
            header throws(InstallError) in try policy.admit(header)
        }
        return try policy.finish()
    }

    /// The loop both forms share: `check` turns each header into the entry to write (or throws).
    private mutating func extractEntries(
        from reader: inout ArchiveReader, limits: InstallLimits, expectedTotal: Int64,
        check: (ArchiveEntryHeader) throws(InstallError) -> PlannedEntry
    ) throws(InstallError) {
        let buffer = DirectIO.allocateBuffer(byteCount: blockSize)
        defer { buffer.deallocate() }
        var syncs = PendingFileSyncs()
        // The folder the previous file went into, kept open: files of one folder usually follow each other.
        var parentPath: ArraySlice<String> = []
        var parentFD: Int32 = -1
        defer { if parentFD >= 0 { close(parentFD) } }
        while true {
            let header: ArchiveEntryHeader?
            do { header = try reader.nextHeader() } catch { throw .archive(error) }
            guard let header else { break }
            let planned = try check(header)
            let components = planned.path.split(separator: "/").map(String.init)
            switch planned.kind {
            case .directory:
                let fd = try openDirectories(components[...])
                close(fd)
            case .file:
                let folder = components.dropLast()
                if parentFD < 0 || folder != parentPath {
                    if parentFD >= 0 { close(parentFD); parentFD = -1 }
                    parentFD = try openDirectories(folder)
                    parentPath = folder
                }
                try writeFile(
                    named: components.last!, in: parentFD, planned: planned, limits: limits,
                    expectedTotal: expectedTotal, reader: &reader, buffer: buffer, syncs: &syncs)
                CrashHook.reach(.extract)
            case .link:
                // Whatever its header says, a link with data is refused before it is made (the data is never written).
                let count: Int
                do { count = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<1])) } catch { throw .archive(error) }
                guard count == 0 else {
                    throw .unsafeEntry(path: header.path, reason: "is a hard link to '\(planned.linkTarget ?? "")' that carries data; links are never installed")
                }
                try link(planned, components: components)
            }
        }
        try syncs.syncAll(failure: syncFailure(expectedTotal: expectedTotal))
        if unsyncedSmallFiles > 0 {
            // One syncfs: the small files' data and inodes and every created folder's entries.
            guard CLinuxSystem_syncFileSystem(stagingFD) == 0 else {
                throw syncFailure(expectedTotal: expectedTotal)("syncfs", errno, stagingPath)
            }
            return
        }
        for directory in createdDirectories.reversed() {
            let fd = try openDirectories(directory.split(separator: "/").map(String.init)[...])
            defer { close(fd) }
            try FileSystemCalls.sync(fd, display: stagingPath + "/" + directory)
        }
        try FileSystemCalls.sync(stagingFD, display: stagingPath)
    }

    /// Makes `planned` (a link the policy admitted) a second name of its target, which must be a regular file in
    /// the staging folder: both folders are walked from the staging descriptor without following links, and
    /// `linkat` (no `AT_SYMLINK_FOLLOW`) names the target inside its folder.
    private mutating func link(_ planned: PlannedEntry, components: [String]) throws(InstallError) {
        let display = stagingPath + "/" + planned.path
        let targetComponents = (planned.linkTarget ?? "").split(separator: "/").map(String.init)
        guard let targetName = targetComponents.last else {
            throw .unsafeEntry(path: planned.path, reason: "is a hard link without a target; links are never installed")
        }
        let targetFolder = try openDirectories(targetComponents.dropLast()[...])
        defer { close(targetFolder) }
        var info = stat()
        guard fstatat(targetFolder, targetName, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .unsafeEntry(path: planned.path, reason: "is a hard link to '\(planned.linkTarget ?? "")', which is not a file this archive put in the staging folder")
        }
        let folder = try openDirectories(components.dropLast()[...])
        defer { close(folder) }
        guard linkat(targetFolder, targetName, folder, components.last!, 0) == 0 else {
            let code = errno
            throw spaceError(code) ?? .system(operation: "link", path: display, errno: code)
        }
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
        expectedTotal: Int64, reader: inout ArchiveReader, buffer: UnsafeMutableRawBufferPointer,
        syncs: inout PendingFileSyncs
    ) throws(InstallError) {
        let display = stagingPath + "/" + planned.path
        let fd = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw spaceError(code, expectedTotal: expectedTotal) ?? .system(operation: "create", path: display, errno: code)
        }
        var closed = false
        defer { if !closed { close(fd) } }
        fchmod(fd, 0o644)
        // Large files go to the device with O_DIRECT in whole aligned buffers (no page-cache copy,
        // cheap fsync); the last partial buffer and small files go through the cache.
        var direct = planned.size >= Int64(buffer.count) && DirectIO.enable(fd)
        var written: Int64 = 0
        var ended = false
        while !ended {
            // Fill the buffer: libarchive hands out whatever its current block holds.
            var filled = 0
            while filled < buffer.count {
                // Ask for at most one byte more than the entry may still hold: a size lie is caught
                // after one extra byte, whatever block size the decompressor works in.
                let allowed = planned.size - written - Int64(filled)
                let room = Int(min(Int64(buffer.count - filled), max(0, allowed) + 1))
                let count: Int
                do { count = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + room)])) } catch {
                    throw .archive(error)
                }
                if count == 0 { ended = true; break }
                if written + Int64(filled + count) > planned.size {
                    throw .sizeExceeded(path: planned.path, declared: planned.size, written: written + Int64(filled + count))
                }
                if bytesWritten + Int64(filled + count) > limits.maxTotalBytes {
                    throw .sizeExceeded(path: "*", declared: limits.maxTotalBytes, written: bytesWritten + Int64(filled + count))
                }
                filled += count
            }
            if filled == 0 { break }
            if direct, filled < buffer.count { direct = !DirectIO.disable(fd) }
            try writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]), to: fd, direct: &direct, display: display, expectedTotal: expectedTotal)
            written += Int64(filled)
            bytesWritten += Int64(filled)
        }
        guard written == planned.size else {
            throw .archive(ArchiveError(
                message: "entry data ended after \(written) of \(planned.size) declared bytes", path: planned.path))
        }
        closed = true
        guard planned.size >= StagingTree.smallFileBytes else {
            // Made durable by the closing syncfs, with the other small files.
            unsyncedSmallFiles += 1
            if close(fd) != 0 { throw syncFailure(expectedTotal: expectedTotal)("close", errno, display) }
            return
        }
        // Fsynced and closed later, with others (``PendingFileSyncs``), always before any directory is fsynced.
        try syncs.add(fd, path: display, failure: syncFailure(expectedTotal: expectedTotal))
    }

    /// Writes all of `bytes` (``DirectIO/writeAll(_:to:direct:)``: leaves `O_DIRECT` when refused);
    /// a full disk becomes ``InstallError/insufficientSpace(needed:available:)``.
    private func writeAll(
        _ bytes: UnsafeRawBufferPointer, to fd: Int32, direct: inout Bool, display: String, expectedTotal: Int64
    ) throws(InstallError) {
        let code = DirectIO.writeAll(bytes, to: fd, direct: &direct)
        if code != 0 {
            throw spaceError(code, expectedTotal: expectedTotal) ?? .system(operation: "write", path: display, errno: code)
        }
    }

    /// How a failed fsync or close of an extracted file is reported: ENOSPC/EDQUOT as `.insufficientSpace`,
    /// anything else as `.system` naming the file.
    private func syncFailure(expectedTotal: Int64) -> (_ operation: String, _ errno: Int32, _ path: String) -> InstallError {
        let stagingPath = stagingPath, written = bytesWritten
        return { operation, code, path in
            Self.spaceError(code, stagingPath: stagingPath, written: written, expectedTotal: expectedTotal)
                ?? .system(operation: operation, path: path, errno: code)
        }
    }

    /// ENOSPC/EDQUOT → `.insufficientSpace` (needed: the whole package; available: free now plus what staging holds).
    private func spaceError(_ code: Int32, expectedTotal: Int64? = nil) -> InstallError? {
        Self.spaceError(code, stagingPath: stagingPath, written: bytesWritten, expectedTotal: expectedTotal)
    }

    private static func spaceError(_ code: Int32, stagingPath: String, written: Int64, expectedTotal: Int64?) -> InstallError? {
        guard code == ENOSPC || code == EDQUOT else { return nil }
        let available = FileSystemCalls.availableBytes(stagingPath) + written
        return .insufficientSpace(needed: expectedTotal ?? written, available: available)
    }
}
