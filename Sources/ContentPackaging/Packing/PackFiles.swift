import Foundation
import Glibc
import SystemSupport

/// The packer's output files, written crash-safe by ``DurableFile`` (temp file, fsync, rename, fsync
/// folder) with the temp files registered for the signal handler, and failures worded for authors.
enum PackFiles {
    /// Creates a registered temp file for `name` in `directory`; returns its path and descriptor.
    static func createTemporary(
        in directory: String, for name: String, registry: TemporaryFileRegistry?
    ) throws(PackError) -> (path: String, fd: Int32) {
        do { return try DurableFile.createTemporary(in: directory, for: name, registry: registry) } catch {
            throw PackError(error)
        }
    }

    /// fsyncs and closes `fd`, renames `temporary` onto `final`, and fsyncs their folder.
    static func commit(fd: Int32, temporary: String, final: String) throws(PackError) {
        do { try DurableFile.commit(fd: fd, temporary: temporary, final: final) } catch { throw PackError(error) }
    }

    /// Writes `data` to `DIR/name` crash-safe.
    static func write(_ data: Data, to name: String, in directory: String, registry: TemporaryFileRegistry?) throws(PackError) {
        let url = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent(name, isDirectory: false)
        do { try DurableFile.write(data, to: url, permissions: nil, registry: registry) } catch { throw PackError(error) }
    }

    /// Writes `DIR/name` crash-safe through `contents`, which writes the bytes to the temp file's descriptor
    /// (named by the path it is given); on any error the temp file is removed.
    static func write(
        to name: String, in directory: String, registry: TemporaryFileRegistry?,
        contents: (_ fd: Int32, _ path: String) throws(PackError) -> Void
    ) throws(PackError) {
        let (temporary, fd) = try createTemporary(in: directory, for: name, registry: registry)
        defer { registry?.unregister(temporary) }
        do {
            try contents(fd, temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        do {
            try commit(fd: fd, temporary: temporary, final: "\(directory)/\(name)")
        } catch {
            unlink(temporary)  // commit closed the descriptor
            throw error
        }
    }

    /// A ``PackError/io(path:errno:message:)`` for `operation` on `path` from the current `errno`.
    static func ioError(_ path: String, _ operation: String) -> PackError {
        PackError(FileSystemError(operation: operation, path: path, errno: errno))
    }
}

extension PackError {
    /// A failed file-system call in an author's words (`cannot flush to disk: No space left on device`),
    /// naming the file; a failed rename names the archive it was for.
    init(_ error: FileSystemError) {
        var path = error.path
        let what: String
        switch error.operation {
        case "fsync": what = "cannot flush to disk"
        case "open": what = "cannot open"
        case "create temporary file": what = "cannot create temporary file"
        case let operation where operation.hasPrefix("rename to "):
            path = String(operation.dropFirst("rename to ".count))
            what = "cannot rename temporary file into place"
        default: what = "cannot \(error.operation)"
        }
        self = .io(path: path, errno: error.errno, message: "\(what): \(error.reason)")
    }
}
