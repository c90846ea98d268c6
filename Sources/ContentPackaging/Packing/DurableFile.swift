import Foundation
import Glibc

/// Crash-safe file creation: temp file in the destination directory, fsync, rename, fsync the directory.
enum DurableFile {
    /// Creates `DIR/.<name>.tmp-<random>` exclusively; returns its path and descriptor.
    ///
    /// The path is registered *before* the file exists, so a signal arriving just after creation
    /// still finds it; the caller unregisters it once it is renamed or removed.
    static func createTemporary(
        in directory: String, for name: String, registry: TemporaryFileRegistry?
    ) throws(PackError) -> (path: String, fd: Int32) {
        let suffix = (0..<8).map { _ in String(UInt8.random(in: 0...15), radix: 16) }.joined()
        let path = "\(directory)/.\(name).tmp-\(suffix)"
        registry?.register(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let error = ioError(path, "cannot create temporary file")
            registry?.unregister(path)
            throw error
        }
        return (path, fd)
    }

    /// fsyncs and closes `fd`, renames `temporary` to `final`, and fsyncs the directory.
    static func commit(fd: Int32, temporary: String, final: String, directory: String) throws(PackError) {
        if fsync(fd) != 0 {
            let error = ioError(temporary, "cannot flush to disk")
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw ioError(temporary, "cannot close") }
        guard rename(temporary, final) == 0 else { throw ioError(final, "cannot rename temporary file into place") }
        let synced = DurableIO.syncDirectory(directory)
        if synced.errno != 0 {
            errno = synced.errno
            throw ioError(directory, synced.operation == "open" ? "cannot open directory to flush it" : "cannot flush directory to disk")
        }
    }

    /// Writes `data` to `DIR/name` via temp + fsync + rename + fsync dir.
    static func write(_ data: Data, to name: String, in directory: String, registry: TemporaryFileRegistry?) throws(PackError) {
        let (temporary, fd) = try createTemporary(in: directory, for: name, registry: registry)
        defer { registry?.unregister(temporary) }
        let failure = data.withUnsafeBytes { DurableIO.writeAll(fd, $0) }
        guard failure == 0 else {
            errno = failure
            let error = ioError(temporary, "cannot write")
            close(fd)
            unlink(temporary)
            throw error
        }
        do {
            try commit(fd: fd, temporary: temporary, final: "\(directory)/\(name)", directory: directory)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// A ``PackError/io(path:errno:message:)`` from the current `errno`.
    static func ioError(_ path: String, _ what: String) -> PackError {
        let code = errno
        return .io(path: path, errno: code, message: "\(what): \(String(cString: strerror(code)))")
    }
}
