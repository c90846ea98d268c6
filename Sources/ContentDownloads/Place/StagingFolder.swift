import Foundation
import Glibc

/// A private folder under `<store>/staging/` that one install is filling.
///
/// While the folder is in use its directory descriptor holds an exclusive `flock`, so
/// ``ContentInstaller/recover(store:)`` (another thread or process) leaves it alone; a crash drops
/// the lock with the process and the folder becomes garbage that recovery deletes. This lets
/// extraction run without the store lock — several packages extract at once, and an install can
/// overlap its own download — while the swap stays serialised by ``StoreLock``.
final class StagingFolder: Sendable {
    /// The folder's name inside `staging/`.
    let name: String
    /// Its absolute path (for messages and removal).
    let path: String
    /// Descriptor of the folder itself (holds the flock).
    let fd: Int32
    /// Descriptor of `staging/`.
    let rootFD: Int32
    /// `staging/`'s path.
    let rootPath: String

    /// Creates `staging/<productID>-<random>` (0755) and locks it.
    init(store: Store, productID: String, expectedBytes: Int64) throws(InstallError) {
        let rootPath = store.stagingDirectory.path
        let name = FileSystemCalls.scratchName(for: productID)
        let path = rootPath + "/" + name
        // Made and locked under the store lock, so recovery (which holds it) never sees the
        // folder between its mkdir and its flock.
        let storeLock = try StoreLock(store: store)
        defer { storeLock.unlock() }
        let rootFD = try FileSystemCalls.openDirectory(rootPath)
        guard mkdirat(rootFD, name, 0o755) == 0 else {
            let code = errno
            close(rootFD)
            if code == ENOSPC || code == EDQUOT {
                throw .insufficientSpace(needed: expectedBytes, available: FileSystemCalls.availableBytes(rootPath))
            }
            throw .system(operation: "mkdir", path: path, errno: code)
        }
        let fd: Int32?
        do { fd = try FileSystemCalls.openDirectory(in: rootFD, name, display: path) } catch {
            close(rootFD)
            throw error
        }
        guard let fd else {
            close(rootFD)
            throw .system(operation: "open directory", path: path, errno: ENOENT)
        }
        fchmod(fd, 0o755)
        flock(fd, LOCK_EX | LOCK_NB)  // new, under a random name: nobody else can hold it
        self.name = name
        self.path = path
        self.fd = fd
        self.rootFD = rootFD
        self.rootPath = rootPath
    }

    /// Takes a finished folder where it is (a chunk-indexed download's tree in `transfers/`) and locks it, so
    /// ``ContentInstaller/commit(_:product:store:archivePath:options:)`` swaps it in with one rename.
    init(adopting path: String) throws(InstallError) {
        let url = URL(fileURLWithPath: path)
        let rootPath = url.deletingLastPathComponent().path
        let rootFD = try FileSystemCalls.openDirectory(rootPath)
        let fd: Int32
        do { fd = try FileSystemCalls.openDirectory(path) } catch {
            close(rootFD)
            throw error
        }
        flock(fd, LOCK_EX | LOCK_NB)
        self.name = url.lastPathComponent
        self.path = path
        self.fd = fd
        self.rootFD = rootFD
        self.rootPath = rootPath
    }

    deinit {
        close(fd)
        close(rootFD)
    }

    /// Deletes the folder (best effort: recovery removes anything left).
    func remove() {
        try? FileSystemCalls.removeTree(path)
    }

    /// True when a live install holds `path`'s lock (recovery must not delete it).
    static func isInUse(_ path: String) -> Bool {
        let fd = open(path, FileSystemCalls.directoryFlags)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }
}
