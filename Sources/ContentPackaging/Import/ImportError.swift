public import SystemSupport

/// Why `iapcontent import` wrote nothing: the source, an entry of it, or the output folder.
///
/// Every case leaves `--output` as it was (the content is built in a temporary folder beside it and
/// renamed into place only at the end); the description says what to do.
public enum ImportError: Error, Sendable, CustomStringConvertible {
    /// The source is not one of the three kinds, or cannot be read as its kind.
    case unreadableSource(path: String, reason: String)
    /// Entries of the source that cannot be imported (links, devices, unsafe names, paths outside the
    /// project, sizes past what is declared or allowed): every one found, one line each.
    case refused([ImportNote])
    /// The imported folder is not valid content (for example a `ContentInfo.plist` without `ContentVersion`).
    case invalidContent([ValidationProblem])
    /// The output folder cannot be used.
    case unusableOutput(path: String, reason: String)
    /// A system call failed.
    case system(FileSystemError)

    /// One line per problem.
    public var description: String {
        switch self {
        case .unreadableSource(let path, let reason):
            "\(path): \(reason)"
        case .refused(let notes):
            notes.map(\.description).joined(separator: "\n")
        case .invalidContent(let problems):
            problems.map { "imported \($0.description)" }.joined(separator: "\n")
        case .unusableOutput(let path, let reason):
            "\(path): \(reason)"
        case .system(let error):
            error.description
        }
    }
}
