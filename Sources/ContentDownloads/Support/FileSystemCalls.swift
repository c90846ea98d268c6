internal import SystemSupport
import Foundation
import Glibc

/// Thin checked wrappers over the *at() system calls the installer uses; every failure names the path.
enum FileSystemCalls {
    static let directoryFlags: Int32 = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC

    /// Opens a directory by absolute path (the store's own folders).
    static func openDirectory(_ path: String) throws(InstallError) -> Int32 {
        let fd = open(path, directoryFlags)
        guard fd >= 0 else { throw .system(operation: "open directory", path: path, errno: errno) }
        return fd
    }

    /// Opens `name` inside `directory` as a directory without following a symlink; `nil` if absent.
    static func openDirectory(in directory: Int32, _ name: String, display: String) throws(InstallError) -> Int32? {
        let fd = openat(directory, name, directoryFlags)
        if fd >= 0 { return fd }
        let code = errno
        if code == ENOENT { return nil }
        throw .system(operation: "open directory", path: display, errno: code)
    }

    /// fsync(2) a descriptor, mapping ENOSPC/EDQUOT to the caller's space error.
    static func sync(_ fd: Int32, display: String) throws(InstallError) {
        if fsync(fd) != 0 { throw .system(operation: "fsync", path: display, errno: errno) }
    }

    /// fsync(2) the directory at `path`.
    static func syncDirectory(_ path: String) throws(InstallError) {
        let fd = try openDirectory(path)
        defer { close(fd) }
        try sync(fd, display: path)
    }

    /// Whether `name` exists in `directory` (no symlink following).
    static func exists(in directory: Int32, _ name: String) -> Bool {
        var info = stat()
        return fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// Deletes a tree the store owns (staging leftovers, old versions, trash). Never follows symlinks.
    /// Another remover working on the same tree (a detached `empty-trash` and a recovery) is not an
    /// error: what vanished meanwhile is gone either way, so the walk is retried, up to three times.
    static func removeTree(_ path: String) throws(InstallError) {
        var info = stat()
        for attempt in 1...3 {
            guard lstat(path, &info) == 0 else { return }
            do {
                try FileManager.default.removeItem(atPath: path)
                return
            } catch {
                if attempt == 3, lstat(path, &info) == 0 {
                    throw .system(operation: "remove", path: path, errno: FileSystemError.posixCode(of: error))
                }
            }
        }
    }

    /// A fresh `<productID>-<random hex>` name for staging and trash folders, always within NAME_MAX.
    static func scratchName(for productID: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = String(generator.next() as UInt64, radix: 16)
        let prefix = productID.utf8.count <= 200 ? productID : "product"
        return "\(prefix)-\(suffix)"
    }

    /// Free bytes for an unprivileged writer on the file system holding `path` (statvfs `f_bavail`).
    static func availableBytes(_ path: String) -> Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
