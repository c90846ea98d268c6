import Foundation
import Glibc

/// A failed system call on a named file: what we tried, on which path, and the C error.
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
    init(operation: String, path: String, foundationError error: any Error) {
        let nsError = error as NSError
        var code = EIO
        if let posix = error as? POSIXError {
            code = posix.code.rawValue
        } else if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? POSIXError {
            code = posix.code.rawValue
        } else if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? any Error,
                  (underlying as NSError).domain == NSPOSIXErrorDomain {
            code = Int32((underlying as NSError).code)
        } else if nsError.domain == NSPOSIXErrorDomain {
            code = Int32(nsError.code)
        }
        self.init(operation: operation, path: path, errno: code)
    }

    /// "open /x/y: No such file or directory (errno 2)".
    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
