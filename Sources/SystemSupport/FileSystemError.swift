internal import Foundation
import Glibc

/// A failed system call on a named file: what we tried, on which path, and the C error.
///
/// The one way the package carries an `errno`: every module's file-system plumbing throws this, and
/// each library's own error type (``InstallError``, ``PackError``, …) wraps it or its fields, so a
/// message always names the operation, the path and the system's reason.
public struct FileSystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was being done (`open`, `write`, `fsync`, `rename`, ...).
    public var operation: String
    /// The file or directory involved.
    public var path: String
    /// The C `errno` value.
    public var errno: Int32

    /// Creates an error from an operation, a path and an errno value.
    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// Wraps a Foundation file error, keeping its POSIX code when it has one (else `EIO`).
    package init(operation: String, path: String, foundationError error: any Error) {
        self.init(operation: operation, path: path, errno: Self.posixCode(of: error))
    }

    /// The POSIX error code inside a Foundation error, itself or the one it wraps (`EIO` when there is none).
    package static func posixCode(of error: any Error) -> Int32 {
        if let posix = error as? POSIXError { return posix.code.rawValue }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain { return Int32(nsError.code) }
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? POSIXError { return posix.code.rawValue }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return EIO
    }

    /// The system's words for ``errno`` (`strerror`).
    package var reason: String { String(cString: strerror(errno)) }

    /// "open /x/y: No such file or directory (errno 2)".
    public var description: String {
        "\(operation) \(path): \(reason) (errno \(errno))"
    }
}
