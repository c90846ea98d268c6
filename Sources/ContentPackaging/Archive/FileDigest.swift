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
        try stream(fromPath: url.path, copyingTo: nil)
    }

    /// Hashes the file at `path` (``of(_:)`` without a URL: a publish of a million products hashes two million
    /// small files, and a URL's `path` costs more than hashing one of them).
    package static func of(path: String) throws(FileSystemError) -> FileDigest {
        try stream(fromPath: path, copyingTo: nil)
    }

    /// Streams `source`, hashing it, and optionally writes the same bytes to `destinationFD`
    /// (one read pass: what is hashed is exactly what is copied).
    package static func stream(from source: URL, copyingTo destinationFD: Int32?, destinationPath: String = "")
        throws(FileSystemError) -> FileDigest
    {
        try stream(fromPath: source.path, copyingTo: destinationFD, destinationPath: destinationPath)
    }

    /// ``stream(from:copyingTo:destinationPath:)`` from a path; reads in chunks of 1 MiB, or of the file's size when
    /// smaller (a small file costs no large allocation).
    package static func stream(fromPath sourcePath: String, copyingTo destinationFD: Int32?, destinationPath: String = "")
        throws(FileSystemError) -> FileDigest
    {
        let fd = open(sourcePath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: sourcePath, errno: errno) }
        defer { close(fd) }
        var info = stat()
        let size = fstat(fd, &info) == 0 ? Int(info.st_size) : 1 << 20
        var hasher = SHA256()
        var length: Int64 = 0
        // One byte over the size, so a file that grew since the fstat still reads to its end in few calls.
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: min(1 << 20, max(4096, size + 1)), alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = read(fd, chunk.baseAddress, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "read", path: sourcePath, errno: errno)
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
