import Foundation
import Glibc
import SystemSupport

/// An exclusive `flock` on `<repository>/.lock` for the length of one command: two publishers on one machine take
/// turns instead of racing for the same versions. Not taken: another command holds it, and this one fails at once
/// rather than waiting behind a publish of unknown length.
struct RepositoryLock: ~Copyable {
    private let fd: Int32

    /// Takes the lock of the repository in `layout` (creating the folder and the lock file if needed).
    init(_ layout: RepositoryLayout) throws(RepositoryError) {
        try RepositoryFiles.makeDirectory(layout.root)
        let path = layout.root.appendingPathComponent(".lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .fileSystem(FileSystemError(operation: "open", path: path, errno: errno)) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw .busy(path: layout.root.path) }
            throw .fileSystem(FileSystemError(operation: "flock", path: path, errno: code))
        }
        self.fd = fd
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
