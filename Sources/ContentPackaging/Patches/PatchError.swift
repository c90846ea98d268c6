/// Why a content patch cannot be written or used: the field or file, the byte offset in the patch where it
/// applies, and what to do.
package struct PatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in words that name the field, entry or file.
    package var reason: String
    /// The byte offset in the patch file where the problem is, when it is in the patch.
    package var offset: Int?

    /// A refusal for `reason`, at `offset` in the patch when given.
    package init(_ reason: String, offset: Int? = nil) {
        self.reason = reason
        self.offset = offset
    }

    /// "patch byte N: reason", or the reason alone.
    package var description: String {
        offset.map { "patch byte \($0): \(reason)" } ?? reason
    }
}
