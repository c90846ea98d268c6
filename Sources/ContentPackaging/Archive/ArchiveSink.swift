import Crypto
import Glibc

/// Where an ``ArchiveWriter`` sends its compressed bytes: a file descriptor, hashed on the way.
///
/// libarchive calls ``write`` through a C callback; hashing here gives the archive's SHA-256
/// without reading the file back. Owned by one writer and used on its thread only.
final class ArchiveSink {
    /// Destination file descriptor (not closed by the sink).
    let fileDescriptor: Int32
    /// The archive path for messages.
    let displayPath: String
    /// Running SHA-256 of every byte written.
    var hasher = SHA256()
    /// Bytes written so far.
    var bytesWritten: Int64 = 0
    /// `errno` of the first failed `write(2)` (e.g. `ENOSPC`), 0 when none failed.
    var failureErrno: Int32 = 0

    init(fileDescriptor: Int32, displayPath: String) {
        self.fileDescriptor = fileDescriptor
        self.displayPath = displayPath
    }

    /// Writes all of `buffer` to the descriptor (retrying short writes and `EINTR`); false on failure.
    func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let count = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                failureErrno = errno
                return false
            }
            offset += count
        }
        hasher.update(bufferPointer: buffer)
        bytesWritten += Int64(buffer.count)
        return true
    }
}
