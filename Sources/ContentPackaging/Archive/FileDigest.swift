public import SystemSupport
public import Foundation
import Crypto
import Glibc

/// The SHA-256 and length of a file: what the packer measured while writing an archive, or what
/// ``of(_:)`` computes by streaming one (never the whole file in memory).
public struct FileDigest: Sendable, Equatable {
    /// Lowercase hex SHA-256 of the bytes.
    public var sha256: String
    /// Number of bytes.
    public var length: Int64

    /// Creates a digest value.
    public init(sha256: String, length: Int64) {
        self.sha256 = sha256
        self.length = length
    }

    /// Hashes the file at `url` in 1 MiB chunks.
    ///
    /// - Throws: `FileSystemError` if it cannot be opened or read.
    public static func of(_ url: URL) throws(FileSystemError) -> FileDigest {
        try stream(from: url, copyingTo: nil)
    }

    /// Streams `source`, hashing it, and optionally writes the same bytes to `destinationFD`
    /// (one read pass: what is hashed is exactly what is copied).
    package static func stream(from source: URL, copyingTo destinationFD: Int32?, destinationPath: String = "")
        throws(FileSystemError) -> FileDigest
    {
        let fd = open(source.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: source.path, errno: errno) }
        defer { close(fd) }
        var hasher = SHA256()
        var length: Int64 = 0
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = read(fd, chunk.baseAddress, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "read", path: source.path, errno: errno)
            }
            if count == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<count])
            hasher.update(bufferPointer: bytes)
            if let destinationFD {
                try DurableFile.writeAll(destinationFD, bytes, path: destinationPath)
            }
            length += Int64(count)
        }
        return FileDigest(sha256: hasher.finalizeHex(), length: length)
    }
}
