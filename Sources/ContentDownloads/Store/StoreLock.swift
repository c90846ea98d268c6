import Foundation
import Glibc

/// An exclusive `flock` on `<store>/.lock`: one install or recovery at a time per store.
///
/// `flock` locks belong to the open file description, so two threads of one process exclude each
/// other too (each opens its own descriptor), and the kernel drops the lock if the process dies —
/// a crashed installer never leaves the store locked.
final class StoreLock {
    private var fd: Int32

    /// Blocks until the lock is held.
    init(store: ContentStore) throws(InstallError) {
        let path = store.root.appendingPathComponent(".lock", isDirectory: false).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
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
