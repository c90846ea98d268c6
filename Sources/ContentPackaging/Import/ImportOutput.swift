import Foundation
import Glibc
import SystemSupport

/// The output side of an import: a temporary folder beside `--output`, renamed into place at the end.
///
/// `--output` must not exist, or be an empty directory; the temporary folder
/// (`.<name>.import-<random>` in the same parent, so the rename stays on one file system) is removed on
/// any failure, so a refused import leaves nothing behind. An import holds an `flock` on its temporary folder
/// while it runs, so the next import to the same output removes the folders a killed one left (none of them
/// locked) and never one that another import is building.
struct ImportOutput {
    /// The folder asked for.
    let output: URL
    /// The temporary folder being built.
    let staging: URL
    /// The temporary folder, open and `flock`ed until ``commit()`` or ``discard()``.
    private let lock: Int32

    /// Checks `output` and creates the temporary folder beside it.
    ///
    /// - Throws: ``ImportError/unusableOutput(path:reason:)`` for an existing file or non-empty folder,
    ///   or a missing parent folder.
    init(output: URL) throws(ImportError) {
        let output = output.standardizedFileURL
        var info = stat()
        if lstat(output.path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw .unusableOutput(path: output.path, reason: "exists and is not a folder; choose a new --output")
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? ["?"]
            guard names.isEmpty else {
                throw .unusableOutput(path: output.path, reason: "is not empty; choose a new --output or empty it")
            }
        }
        let parent = output.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: parent.path) else {
            throw .unusableOutput(path: output.path, reason: "its parent folder \(parent.path) does not exist; create it first")
        }
        let prefix = ".\(output.lastPathComponent).import-"
        Self.removeAbandoned(in: parent, prefix: prefix)
        let suffix = (0..<12).map { _ in String(UInt8.random(in: 0...15), radix: 16) }.joined()
        let staging = parent.appendingPathComponent(prefix + suffix, isDirectory: true)
        guard mkdir(staging.path, 0o755) == 0 else {
            throw .system(FileSystemError(operation: "mkdir", path: staging.path, errno: errno))
        }
        let lock = open(staging.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            if lock >= 0 { close(lock) }
            try? FileManager.default.removeItem(at: staging)
            throw .system(FileSystemError(operation: "lock", path: staging.path, errno: code))
        }
        self.output = output
        self.staging = staging
        self.lock = lock
    }

    /// Removes the temporary folders of earlier imports to the same output that no running import holds: what a
    /// killed import left behind.
    private static func removeAbandoned(in parent: URL, prefix: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            let path = parent.appendingPathComponent(name).path
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }  // another import is building it
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// fsyncs the folders of the built tree (files were fsynced as written), renames it onto `output` (an empty
    /// folder there is replaced atomically) and fsyncs the parent.
    /// On success the lock is let go; on a failure ``discard()`` lets it go.
    func commit() throws(ImportError) {
        do {
            try syncDirectories(under: staging.path)
            guard rename(staging.path, output.path) == 0 else {
                let code = errno
                if code == ENOTEMPTY || code == EEXIST {
                    throw ImportError.unusableOutput(path: output.path, reason: "was filled while importing; choose a new --output")
                }
                throw ImportError.system(FileSystemError(operation: "rename to \(output.path)", path: staging.path, errno: code))
            }
            try DurableFile.syncDirectory(output.deletingLastPathComponent())
            close(lock)
        } catch let error as ImportError {
            throw error
        } catch let error as FileSystemError {
            throw .system(error)
        } catch {
            throw .system(FileSystemError(operation: "commit", path: output.path, errno: EIO))
        }
    }

    /// Removes the temporary folder and everything in it.
    func discard() {
        try? FileManager.default.removeItem(at: staging)
        close(lock)
    }

    /// fsyncs every directory below and including `path`.
    private func syncDirectories(under path: String) throws(FileSystemError) {
        var failures: [FolderWalker.Failure] = []
        let entries = FolderWalker.walk(root: Array(path.utf8), skip: { _, _ in false }, failures: &failures)
        if let failure = failures.first {
            throw FileSystemError(operation: "read", path: path + "/" + String(decoding: failure.pathBytes, as: UTF8.self), errno: failure.errno)
        }
        for entry in entries where entry.kind == .directory {
            try DurableFile.syncDirectory(URL(fileURLWithPath: path + "/" + entry.path))
        }
        try DurableFile.syncDirectory(URL(fileURLWithPath: path))
    }
}
