/// A libarchive failure, with the file it concerns and libarchive's own words.
///
/// Shaped like NIO's `IOError`: the raw code plus a reason a person can act on.
public struct ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `archive_errno()` at the time of failure (0 when libarchive set none).
    public var errno: Int32
    /// `archive_error_string()` or our own explanation.
    public var message: String
    /// The archive (or entry) path the failure concerns.
    public var path: String

    /// Creates an error.
    public init(errno: Int32 = 0, message: String, path: String) {
        self.errno = errno
        self.message = message
        self.path = path
    }

    /// `path: message`
    public var description: String { "\(path): \(message)" }
}
