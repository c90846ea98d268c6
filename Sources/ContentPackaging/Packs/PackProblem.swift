/// One thing wrong with a pack or variant declaration, or with how the folder's paths use it.
///
/// `key` is the `ContentInfo.plist` key path (`Packs.voices.Policy`) when the declaration is wrong; `path` is
/// the package path (`Contents/Voices#language=de/a.ogg`) when a path is. The message says what is wrong and
/// what to write instead.
public struct PackProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key path in `ContentInfo.plist`, or `nil`.
    public var key: String?
    /// The path in the package, or `nil`.
    public var path: String?
    /// What is wrong and what to do.
    public var message: String

    /// Creates a problem.
    public init(key: String?, path: String? = nil, message: String) {
        self.key = key
        self.path = path
        self.message = message
    }

    /// `path: message`, `ContentInfo.plist key: message`, or the message alone.
    public var description: String {
        if let path { return "\(path): \(message)" }
        if let key { return "ContentInfo.plist \(key): \(message)" }
        return message
    }
}
