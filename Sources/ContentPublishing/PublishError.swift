/// Why a publish or a prune stopped: one sentence naming the object or file, what happened and what to do.
package struct PublishError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message.
    package let message: String
    /// Whether another publisher replaced the catalog first (the compare-and-swap lost): nothing referenced changed.
    package let lostRace: Bool

    /// A failure with `message`.
    package init(_ message: String, lostRace: Bool = false) {
        self.message = message
        self.lostRace = lostRace
    }

    /// The message.
    package var description: String { message }
}
