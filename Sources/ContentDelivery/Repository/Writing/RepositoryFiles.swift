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
        try placeTarget(source.path, at: url.path, length: length, sha256: sha256, durable: durable)
    }

    /// ``placeTarget(_:at:length:sha256:durable:)`` by paths. Not `durable`, a new target is linked straight to its
    /// name and hashed there (one link, one read), and removed again when its bytes are not the ones expected: nothing
    /// names it before the publish's timestamp, and a run that stopped in between finds it wrong and replaces it.
    static func placeTarget(_ source: String, at destination: String, length: Int64, sha256: String, durable: Bool = true) throws(RepositoryError) {
        let expected = FileDigest(sha256: sha256, length: length)
        let directory = destination.lastIndex(of: "/").map { String(destination[..<$0]) } ?? "."
        func mismatch(_ digest: FileDigest) -> RepositoryError {
            .targetMismatch(
                path: source, expected: "\(length) bytes, sha256 \(sha256)", actual: "\(digest.length) bytes, sha256 \(digest.sha256)")
        }
        // Not durable: the link is tried first, and its folder made only when it is missing (a product's archive and
        // manifest share one, so half the `mkdir`s of a large publish, each taking the parent folder's lock, are saved).
        var linked = false
        if !durable {
            linked = link(source, destination) == 0
            if !linked, errno == ENOENT {
                try makeDirectory(path: directory)
                linked = link(source, destination) == 0
            }
        }
        if linked {
            let digest: FileDigest
            do { digest = try FileDigest.of(path: destination) } catch {
                unlink(destination)
                throw .fileSystem(error)
            }
            guard digest == expected else {
                unlink(destination)
                throw mismatch(digest)
            }
            return
        }
        try makeDirectory(path: directory)  // durable, or a target there already, or a copy across file systems
        if access(destination, F_OK) == 0, (try? FileDigest.of(path: destination)) == expected { return }
        let temporary = "\(directory)/.\(destination[destination.index(after: directory.endIndex)...]).tmp-\(UUID().uuidString)"
        do {
            let digest: FileDigest
            if link(source, temporary) == 0 {
                digest = try FileDigest.of(path: temporary)
            } else {
                let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard fd >= 0 else { throw FileSystemError(operation: "open", path: temporary, errno: errno) }
                defer { close(fd) }
                digest = try FileDigest.stream(fromPath: source, copyingTo: fd, destinationPath: temporary)
                guard !durable || fsync(fd) == 0 else { throw FileSystemError(operation: "fsync", path: temporary, errno: errno) }
            }
            guard digest == expected else {
                unlink(temporary)
                throw mismatch(digest)
            }
            if durable {
                try DurableFile.commit(URL(fileURLWithPath: temporary), to: URL(fileURLWithPath: destination))
            } else if rename(temporary, destination) != 0 {
                throw FileSystemError(operation: "rename to \(destination)", path: temporary, errno: errno)
            }
        } catch let error as RepositoryError {
            throw error
        } catch let error as FileSystemError {
            unlink(temporary)
            throw .fileSystem(error)
        } catch {
            unlink(temporary)
            throw .fileSystem(FileSystemError(operation: "copy", path: source, errno: EIO))
        }
    }

    /// Makes folder `path` and any missing parents: one `mkdir` when only the last is missing or none is.
    static func makeDirectory(path: String) throws(RepositoryError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        try makeDirectory(URL(fileURLWithPath: path, isDirectory: true))
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
