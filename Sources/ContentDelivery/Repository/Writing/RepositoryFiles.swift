import Foundation
import Glibc
import SystemSupport
import ContentPackaging

/// Durable writes for the repository: versioned metadata and targets are created, never replaced (a second
/// publisher racing for the same version fails instead of overwriting); `timestamp.json` is replaced atomically.
/// Each is written to a temp file, fsynced, then linked or renamed into place, and its folder fsynced; or, for the
/// many files of one publish that nothing names yet, written without an fsync each and made durable together by
/// one `syncfs` before the timestamp that names them.
enum RepositoryFiles {
    /// Creates `url` holding `data`; throws ``RepositoryError/alreadyExists(path:)`` when it exists.
    ///
    /// Not `durable`: neither the file nor its folder is fsynced, for a file nothing names until a later
    /// ``syncFileSystem(_:)`` (a publish writes thousands of bins, then syncs once before the timestamp names them).
    static func create(_ data: Data, at url: URL, durable: Bool = true) throws(RepositoryError) {
        let directory = url.deletingLastPathComponent()
        try makeDirectory(directory)
        let temporary: String
        let fd: Int32
        do { (temporary, fd) = try DurableFile.createTemporary(in: directory.path, for: url.lastPathComponent) } catch {
            throw .fileSystem(error)
        }
        defer { unlink(temporary) }
        let writeError: FileSystemError? = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> FileSystemError? in
            do throws(FileSystemError) {
                try DurableFile.writeAll(fd, buffer, path: temporary)
                return nil
            } catch {
                return error
            }
        }
        if let writeError {
            close(fd)
            throw .fileSystem(writeError)
        }
        guard !durable || fsync(fd) == 0 else {
            let error = FileSystemError(operation: "fsync", path: temporary, errno: errno)
            close(fd)
            throw .fileSystem(error)
        }
        close(fd)
        guard link(temporary, url.path) == 0 else {
            if errno == EEXIST { throw .alreadyExists(path: url.path) }
            throw .fileSystem(FileSystemError(operation: "link to \(url.path)", path: temporary, errno: errno))
        }
        guard durable else { return }
        do { try DurableFile.syncDirectory(directory) } catch { throw .fileSystem(error) }
    }

    /// Makes every file written on the file system holding `url` durable (`syncfs(2)`): one call instead of an fsync
    /// per file and per folder, before the one file that names them all is written.
    static func syncFileSystem(_ url: URL) throws(RepositoryError) {
        do { try DurableFile.syncFileSystem(of: url) } catch { throw .fileSystem(error) }
    }

    /// Replaces `url` with `data` atomically and durably.
    static func replace(_ data: Data, at url: URL) throws(RepositoryError) {
        try makeDirectory(url.deletingLastPathComponent())
        do { try DurableFile.write(data, to: url) } catch { throw .fileSystem(error) }
    }

    /// ``replace(_:at:)``, then, when the new file's modification time is in the same second as the old one's, moves
    /// it one second past: a web server whose ETag is the modification time and the size (nginx's) would otherwise
    /// give the new file the old one's ETag, and answer a client's conditional request with a 304 for a file that
    /// changed.
    static func replaceChangingValidator(_ data: Data, at url: URL) throws(RepositoryError) {
        var old = stat()
        let hadOld = stat(url.path, &old) == 0
        try replace(data, at: url)
        var new = stat()
        guard hadOld, stat(url.path, &new) == 0, new.st_mtim.tv_sec <= old.st_mtim.tv_sec else { return }
        var times = [timespec(tv_sec: old.st_mtim.tv_sec + 1, tv_nsec: 0), timespec(tv_sec: old.st_mtim.tv_sec + 1, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, url.path, &times, 0) == 0 else {
            throw .fileSystem(FileSystemError(operation: "utimensat", path: url.path, errno: errno))
        }
    }

    /// Places the file `source` at `url` (a hard link when on the same file system, otherwise a copy), checking
    /// that its bytes are `length` bytes hashing to `sha256`. An existing file with those bytes is kept.
    /// Not `durable`: nothing is fsynced (a later ``syncFileSystem(_:)`` is, before a bin names the target).
    static func placeTarget(_ source: URL, at url: URL, length: Int64, sha256: String, durable: Bool = true) throws(RepositoryError) {
        let expected = FileDigest(sha256: sha256, length: length)
        if FileManager.default.fileExists(atPath: url.path), (try? FileDigest.of(url)) == expected { return }
        let directory = url.deletingLastPathComponent()
        try makeDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
        do {
            let digest: FileDigest
            if link(source.path, temporary.path) == 0 {
                digest = try FileDigest.of(temporary)
            } else {
                let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard fd >= 0 else { throw FileSystemError(operation: "open", path: temporary.path, errno: errno) }
                defer { close(fd) }
                digest = try FileDigest.stream(from: source, copyingTo: fd, destinationPath: temporary.path)
                guard !durable || fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: temporary.path, errno: errno) }
            }
            guard digest == expected else {
                unlink(temporary.path)
                throw RepositoryError.targetMismatch(
                    path: source.path, expected: "\(length) bytes, sha256 \(sha256)",
                    actual: "\(digest.length) bytes, sha256 \(digest.sha256)")
            }
            if durable {
                try DurableFile.commit(temporary, to: url)
            } else if rename(temporary.path, url.path) != 0 {
                throw FileSystemError(operation: "rename to \(url.path)", path: temporary.path, errno: errno)
            }
        } catch let error as RepositoryError {
            throw error
        } catch let error as FileSystemError {
            unlink(temporary.path)
            throw .fileSystem(error)
        } catch {
            unlink(temporary.path)
            throw .fileSystem(FileSystemError(operation: "copy", path: source.path, errno: EIO))
        }
    }

    static func makeDirectory(_ url: URL) throws(RepositoryError) {
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw .fileSystem(FileSystemError(operation: "mkdir", path: url.path, foundationError: error))
        }
    }

    /// The bytes of `url`, or ``RepositoryError/missingMetadata(path:)``.
    static func read(_ url: URL) throws(RepositoryError) -> Data {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw .missingMetadata(path: url.path) }
        return data
    }
}
