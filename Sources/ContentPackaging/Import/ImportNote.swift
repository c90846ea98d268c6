/// One line of an import's report: an entry of the source that was dropped or refused, and why.
///
/// Printed as `dropped <entry>: <reason>` or `refused <entry>: <reason>`; the entry is named as the
/// source spells it (a file under the folder, a file of the Xcode project, or `<package>/Payload: ./…`).
public struct ImportNote: Sendable, Equatable, CustomStringConvertible {
    /// What happened to the entry.
    public enum Action: String, Sendable, Equatable {
        /// Left out of the content folder; the import goes on (OS litter, executable code).
        case dropped
        /// Not importable; the import fails and writes nothing.
        case refused
    }

    /// Dropped or refused.
    public var action: Action
    /// The entry, named as the source spells it.
    public var entry: String
    /// Why, and what to do when it is a refusal.
    public var reason: String

    /// Creates a note.
    public init(_ action: Action, entry: String, reason: String) {
        self.action = action
        self.entry = entry
        self.reason = reason
    }

    /// `dropped|refused <entry>: <reason>`
    public var description: String { "\(action.rawValue) \(entry): \(reason)" }
}
