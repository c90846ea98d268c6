/// One transfer attempt of an archive, as an extraction that follows it sees it: which archive, where its bytes
/// land while they arrive and where the verified archive goes.
struct ArchiveAttempt: Sendable, Equatable {
    /// The product the archive installs.
    var productID: String
    /// The SHA-256 the signed catalog gives for the archive.
    var expectedSHA256: String
    /// The file the bytes are written into while they arrive.
    var partialPath: String
    /// Where the verified archive is renamed to.
    var archivePath: String
    /// Whether the attempt installs chunk by chunk (then nothing follows it: it places its own bytes).
    var chunked: Bool
}
