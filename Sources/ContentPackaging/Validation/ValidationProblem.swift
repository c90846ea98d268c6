/// One thing wrong with a content folder: the path (relative to the package root) and what to do.
///
/// Printed one per line as `path: message`; sorted byte-wise by path so output is stable.
public struct ValidationProblem: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Path relative to the package root (`.` for the package as a whole).
    public var path: String
    /// What is wrong and how to fix it.
    public var message: String

    /// Creates a problem.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`
    public var description: String { "\(path): \(message)" }
}
