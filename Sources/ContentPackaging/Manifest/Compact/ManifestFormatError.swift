/// Why bytes are not a compact manifest: the field or record, where it lies, and what is wrong.
///
/// A client reads the manifest before it trusts a single offset, and a publisher's tools read the ones
/// `pack` wrote; both need to know which record broke and whether to pack again or update the reader,
/// so every refusal names the field (`file 17's path`), the byte offset (in the file for the envelope,
/// in the decompressed body for everything after it) and what to do.
public struct ManifestFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field or record at fault: `magic`, `body length`, `file 17's path`, `chunk 3's length`.
    public var field: String
    /// Where it starts: a byte offset in the file for the envelope, in the decompressed body otherwise.
    public var offset: Int
    /// Whether ``offset`` counts bytes of the decompressed body (else bytes of the file).
    public var inBody: Bool
    /// What is wrong with it, and what to do.
    public var reason: String

    /// A refusal of `field` at `offset` (a body offset when `inBody`) for `reason`.
    public init(field: String, offset: Int, inBody: Bool, reason: String) {
        self.field = field
        self.offset = offset
        self.inBody = inBody
        self.reason = reason
    }

    /// "compact manifest: file 17's path at body byte 1234: …".
    public var description: String {
        "compact manifest: \(field) at \(inBody ? "body" : "file") byte \(offset): \(reason)"
    }
}
