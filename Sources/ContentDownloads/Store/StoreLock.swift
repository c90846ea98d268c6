import Foundation
import Glibc

/// An exclusive `flock` on `<store>/.lock`: one install or recovery at a time per store.
///
/// `flock` locks belong to the open file description, so two threads of one process exclude each
/// other too (each opens its own descriptor), and the kernel drops the lock if the process dies —
/// a crashed installer never leaves the store locked.
final class StoreLock {
    private var fd: Int32

    /// Blocks until the lock is held (creating `.lock` if needed).
    convenience init(store: Store) throws(InstallError) {
        try self.init(store: store, create: true)!
    }

    /// Blocks until the lock is held; `nil` when `create` is false and the store has no `.lock` (it is gone, or
    /// being deleted): a caller that only deletes must never create a file there, or a concurrent `rm -rf` of the
    /// store would find it not empty.
    init?(store: Store, create: Bool) throws(InstallError) {
        let path = store.installLockFile.path
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0o644)
        if fd < 0, !create, errno == ENOENT { return nil }
        guard fd >= 0 else { throw .system(operation: "open lock", path: path, errno: errno) }
        while flock(fd, LOCK_EX) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            throw .system(operation: "flock", path: path, errno: code)
        }
        self.fd = fd
    }

    /// Releases the lock (idempotent; also on deinit).
    func unlock() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    deinit {
        unlock()
    }
}
