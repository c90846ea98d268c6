public import Foundation
import ContentPackaging
import Glibc

/// Crash-safe file writes: temp file in the same directory → fsync → rename → fsync directory.
///
/// After a crash the destination holds either the old or the new bytes, never a mix.
public enum DurableFile {
    /// Atomically replaces `url` with `data`.
    ///
    /// - Parameters:
    ///   - data: The complete new content.
    ///   - url: The destination file.
    ///   - permissions: Mode of the new file (e.g. `0o600` for keys).
    /// - Throws: ``FileSystemError`` naming the failing call and path.
    public static func write(_ data: Data, to url: URL, permissions: mode_t = 0o644) throws(FileSystemError) {
        let directory = url.deletingLastPathComponent()
        let temp = directory.appendingPathComponent(".tmp-\(UUID().uuidString)-\(url.lastPathComponent)")
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: temp.path, errno: errno) }
        do throws(FileSystemError) {
            let failure = data.withUnsafeBytes { buffer in DurableIO.writeAll(fd, buffer) }
            if failure != 0 { throw FileSystemError(operation: "write", path: temp.path, errno: failure) }
            // open() applies the umask; the mode must be exactly what was asked for (keys: 0600).
            guard fchmod(fd, permissions) == 0 else {
                throw FileSystemError(operation: "fchmod", path: temp.path, errno: errno)
            }
            guard fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: temp.path, errno: errno) }
            guard close(fd) == 0 else { throw FileSystemError(operation: "close", path: temp.path, errno: errno) }
        } catch {
            close(fd)
            unlink(temp.path)
            throw error
        }
        try commit(temp, to: url)
    }

    /// Renames a fully written and fsynced temp file onto `url`, then fsyncs the directory.
    public static func commit(_ temp: URL, to url: URL) throws(FileSystemError) {
        guard rename(temp.path, url.path) == 0 else {
            let code = errno
            unlink(temp.path)
            throw FileSystemError(operation: "rename to \(url.path)", path: temp.path, errno: code)
        }
        try syncDirectory(url.deletingLastPathComponent())
    }

    /// fsyncs a directory so a rename or link inside it survives a crash.
    public static func syncDirectory(_ directory: URL) throws(FileSystemError) {
        let result = DurableIO.syncDirectory(directory.path)
        if result.errno != 0 { throw FileSystemError(operation: result.operation, path: directory.path, errno: result.errno) }
    }

    /// Writes every byte of `buffer`, retrying short writes and `EINTR`.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(FileSystemError) {
        let failure = DurableIO.writeAll(fd, buffer)
        if failure != 0 { throw FileSystemError(operation: "write", path: path, errno: failure) }
    }
}
