package import Foundation
import CLinuxSystem
import Glibc

/// Crash-safe file writes: temp file in the same directory → write → fsync → rename → fsync directory.
///
/// After a crash the destination holds either the old or the new bytes, never a mix, and a temp file
/// is the only possible leftover. Used by every module that writes a file it must not lose: the packer's
/// archive and manifest, keys, catalogs. Failures name the call and the path (``FileSystemError``).
package enum DurableFile {
    /// Creates `DIR/.<name>.tmp-<random>` exclusively; returns its path and descriptor. With `permissions`
    /// the mode is exactly that, whatever the umask (keys: 0600); without, 0644 as the umask allows.
    ///
    /// The path is registered in `registry` *before* the file exists, so a signal arriving just after
    /// creation still finds it; the caller unregisters it once it is renamed or removed.
    package static func createTemporary(
        in directory: String, for name: String, permissions: mode_t? = nil, registry: TemporaryFileRegistry? = nil
    ) throws(FileSystemError) -> (path: String, fd: Int32) {
        let suffix = (0..<16).map { _ in String(UInt8.random(in: 0...15), radix: 16) }.joined()
        let path = "\(directory)/.\(name).tmp-\(suffix)"
        registry?.register(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions ?? 0o644)
        guard fd >= 0 else {
            let error = FileSystemError(operation: "create temporary file", path: path, errno: errno)
            registry?.unregister(path)
            throw error
        }
        // open() applies the umask; an explicit mode must be exactly what was asked for (keys: 0600).
        guard let permissions else { return (path, fd) }
        guard fchmod(fd, permissions) == 0 else {
            let error = FileSystemError(operation: "fchmod", path: path, errno: errno)
            close(fd)
            unlink(path)
            registry?.unregister(path)
            throw error
        }
        return (path, fd)
    }

    /// fsyncs and closes `fd`, renames `temporary` onto `final`, and fsyncs the folder holding it.
    /// On failure `fd` is closed; the caller removes `temporary`.
    package static func commit(fd: Int32, temporary: String, final: String) throws(FileSystemError) {
        guard fsync(fd) == 0 else {
            let error = FileSystemError(operation: "fsync", path: temporary, errno: errno)
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw FileSystemError(operation: "close", path: temporary, errno: errno) }
        try commit(URL(fileURLWithPath: temporary), to: URL(fileURLWithPath: final))
    }

    /// Atomically replaces `url` with `data`, as a file of exactly mode `permissions` (default 0644: what a
    /// web server must be able to read), or 0644 as the umask allows when `permissions` is `nil`.
    package static func write(
        _ data: Data, to url: URL, permissions: mode_t? = 0o644, registry: TemporaryFileRegistry? = nil
    ) throws(FileSystemError) {
        let (temporary, fd) = try writeTemporary(data, beside: url, permissions: permissions, registry: registry)
        defer { registry?.unregister(temporary) }
        do { try commit(fd: fd, temporary: temporary, final: url.path) } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Replaces `url` with `data` by a rename, with no fsync: a crash may leave the old file, none, or (on power
    /// loss) a torn one under `url`. For a file made durable later (``sync(_:)``) by a step that must come first
    /// anyway, so that the write does not wait for the disk.
    package static func writeUnsynced(_ data: Data, to url: URL, permissions: mode_t? = 0o644) throws(FileSystemError) {
        let (temporary, fd) = try writeTemporary(data, beside: url, permissions: permissions, registry: nil)
        close(fd)
        guard rename(temporary, url.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileSystemError(operation: "rename to \(url.path)", path: temporary, errno: code)
        }
    }

    /// A new temporary file beside `url` holding `data`, still open; removed again when the write fails.
    private static func writeTemporary(
        _ data: Data, beside url: URL, permissions: mode_t?, registry: TemporaryFileRegistry?
    ) throws(FileSystemError) -> (path: String, fd: Int32) {
        let (temporary, fd) = try createTemporary(
            in: url.deletingLastPathComponent().path, for: url.lastPathComponent, permissions: permissions, registry: registry)
        var direct = false
        let failure = data.withUnsafeBytes { DirectIO.writeAll($0, to: fd, direct: &direct) }
        guard failure == 0 else {
            close(fd)
            unlink(temporary)
            registry?.unregister(temporary)
            throw FileSystemError(operation: "write", path: temporary, errno: failure)
        }
        return (temporary, fd)
    }

    /// fsyncs the file at `url`, then the folder holding it: a file written without an fsync is durable under
    /// its name once this returns.
    package static func sync(_ url: URL) throws(FileSystemError) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: url.path, errno: errno) }
        guard fsync(fd) == 0 else {
            let error = FileSystemError(operation: "fsync", path: url.path, errno: errno)
            close(fd)
            throw error
        }
        close(fd)
        try syncDirectory(url.deletingLastPathComponent())
    }

    /// Renames a fully written and fsynced temp file onto `url`, then fsyncs the directory.
    /// On failure the temp file is removed.
    package static func commit(_ temp: URL, to url: URL) throws(FileSystemError) {
        guard rename(temp.path, url.path) == 0 else {
            let code = errno
            unlink(temp.path)
            throw FileSystemError(operation: "rename to \(url.path)", path: temp.path, errno: code)
        }
        try syncDirectory(url.deletingLastPathComponent())
    }

    /// fsyncs a directory so a rename or creation inside it survives a crash.
    package static func syncDirectory(_ directory: URL) throws(FileSystemError) {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: directory.path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: directory.path, errno: errno) }
    }

    /// Writes every byte of `buffer` to `fd`, retrying short writes and `EINTR`.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(FileSystemError) {
        var direct = false
        let failure = DirectIO.writeAll(buffer, to: fd, direct: &direct)
        if failure != 0 { throw FileSystemError(operation: "write", path: path, errno: failure) }
    }

    /// `syncfs(2)` on the file system holding the folder `url`: every file written there becomes durable in one call,
    /// for a writer that creates many files nothing names yet and then one file that names them all.
    package static func syncFileSystem(of url: URL) throws(FileSystemError) {
        let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: url.path, errno: errno) }
        defer { close(fd) }
        guard CLinuxSystem_syncFileSystem(fd) == 0 else { throw FileSystemError(operation: "syncfs", path: url.path, errno: errno) }
    }
}
