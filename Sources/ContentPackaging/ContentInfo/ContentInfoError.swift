/// A problem with a package's `ContentInfo.plist`, naming the key and what to do about it.
///
/// Printed as `ContentInfo.plist: key IAPProductIdentifier: missing; add ...`.
public struct ContentInfoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key concerned, or `nil` when the whole file is at fault (unreadable, not a plist).
    public var key: String?
    /// What is wrong and how to fix it.
    public var message: String

    /// Creates an error about `key` (or about the whole file when `key` is `nil`).
    public init(key: String?, message: String) {
        self.key = key
        self.message = message
    }

    /// The message without the file name: `key K: message` or just `message`.
    public var detail: String {
        if let key { return "key \(key): \(message)" }
        return message
    }

    /// `ContentInfo.plist: key K: message`
    public var description: String { "\(ContentInfo.fileName): \(detail)" }
}
