import Foundation
internal import Glibc

/// The advisory lock (`flock(LOCK_EX|LOCK_NB)` on `driver.lock`) that lets one process drive a store.
///
/// The kernel releases it when the process dies, so a `kill -9` never leaves a stale lock.
/// The holder writes its pid into the file so a refused second driver can name it.
package final class DriverLock: Sendable {
    private let fd: Int32
    /// The lock file.
    package let path: String

    /// Takes the lock or throws ``DriverLockError/busy(store:pid:)`` at once.
    package init(store: Store) throws(DriverLockError) {
        path = store.driverLockFile.path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
            close(fd)
            let pid = n > 0 ? Int32(String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) : nil
            throw .busy(store: store.root.path, pid: pid)
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = fd
    }

    /// Tries to take the lock; `nil` when another process holds it.
    package static func attempt(store: Store) -> DriverLock? {
        try? DriverLock(store: store)
    }

    /// Whether a live process holds the lock of `store` now, read from `/proc/locks` (the lock is never taken, so
    /// a driver starting meanwhile is not refused). A killed driver's lock is gone with it.
    package static func isHeld(store: Store) -> Bool {
        var info = stat()
        guard stat(store.driverLockFile.path, &info) == 0,
              let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
        else { return false }
        // "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF": the device and inode are the sixth field.
        let inode = ":\(info.st_ino)"
        return locks.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 5 && fields[1] == "FLOCK" && fields[5].hasSuffix(inode)
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
