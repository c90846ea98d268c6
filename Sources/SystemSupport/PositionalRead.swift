import Glibc

/// Reads of a file's bytes at a given offset with `pread`, retrying interrupted calls: the descriptor's own offset is
/// never moved, so several readers may share one. One place for the loop the chunk verifier, the dictionary's readers
/// and its trainer all need.
package enum PositionalRead {
    /// Fills `buffer` from `fd` at `offset`; false on an error or when the file ends first.
    package static func fill(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Bool {
        read(fd, buffer, at: offset) == buffer.count
    }

    /// Up to `count` bytes of `fd` from `offset`, fewer where the file ends; `nil` on an error (`errno` says which).
    package static func bytes(_ fd: Int32, count: Int, at offset: Int64) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let done = bytes.withUnsafeMutableBytes { read(fd, $0, at: offset) }
        guard done >= 0 else { return nil }
        bytes.removeLast(count - done)
        return bytes
    }

    /// The first `count` bytes of the regular file at `path`, opened without blocking (a FIFO or a device is refused,
    /// never waited on), fewer where it ends.
    /// - Throws: ``FileSystemError`` when it cannot be opened or read, or is not a regular file (`EINVAL`).
    package static func start(ofRegularFile path: String, count: Int) throws(FileSystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError(operation: "fstat", path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileSystemError(operation: "read (not a regular file)", path: path, errno: EINVAL) }
        guard let bytes = bytes(fd, count: count, at: 0) else { throw FileSystemError(operation: "pread", path: path, errno: errno) }
        return bytes
    }

    /// Bytes read into `buffer` from `offset` until it is full or the file ends; -1 on an error.
    private static func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        var done = 0
        while done < buffer.count {
            let count = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return -1 }
            if count == 0 { break }
            done += count
        }
        return done
    }
}
