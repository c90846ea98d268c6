/// Why a pack failed: the folder is invalid, a file operation failed, or libarchive did.
public enum PackError: Error, Sendable, CustomStringConvertible {
    /// The folder failed validation; every problem is listed (nothing was written).
    case invalid([ValidationProblem])
    /// A file system call failed on `path` (`errno` and what to do in `message`).
    case io(path: String, errno: Int32, message: String)
    /// libarchive failed while writing.
    case archive(ArchiveError)

    /// One line per problem, or `path: message`.
    public var description: String {
        switch self {
        case .invalid(let problems): problems.map(\.description).joined(separator: "\n")
        case .io(let path, _, let message): "\(path): \(message)"
        case .archive(let error): error.description
        }
    }
}
