/// What the engine needs to fetch one archive: where from, where to, and what it must be.
///
/// The engine never reads the journal; the manager builds this from a journal record.
package struct TransferRequest: Sendable, Equatable {
    /// The download's key (the product identifier).
    package var id: String
    /// Which attempt of the download this is, unique for the engine's life (the manager numbers them): every
    /// event the attempt causes carries it (``AttemptEvent``), and a stop names the attempt it is for.
    package var attemptID: UInt64 = 0
    /// The archive URL (`http`, `https` or `file`).
    package var url: String
    /// The partial file the bytes go to.
    package var partialPath: String
    /// Where the verified archive is renamed to.
    package var archivePath: String
    /// Bytes already durable on disk (from the journal); the file is truncated to this first…
    package var offset: Int64
    /// …unless the bytes past it were written in this boot (``TransferRecord/keepsWrittenTail``):
    /// then the transfer resumes from the partial file's length and the first checkpoint's fsync
    /// makes those bytes durable too. The final SHA-256 still covers every byte.
    package var keepsWrittenTail: Bool
    /// The exact archive length from the catalog.
    package var expectedLength: Int64
    /// The lowercase hex SHA-256 from the catalog.
    package var expectedSHA256: String
    /// The validator seen when the download started, sent as `If-Range`.
    package var validator: Validator?
    /// Receive-rate cap in bytes per second (0 = none).
    package var maxBytesPerSecond: Int64
    /// Told how far the partial file is written, so an overlapped install can follow it; `nil` = nobody follows.
    package var feed: GrowingArchive?
    /// Set for a chunk plan (its chunks fetched and installed in place, no archive file); `nil` fetches the archive file.
    package var chunked: ChunkedInstallTarget?
    /// Every URL of this archive (``url`` first) a chunk plan fetches from at once; empty = ``url`` only.
    package var mirrors: [String] = []
    /// The chunk plan and its checked manifest as planning made them moments ago (`nil`: read from the store).
    package var planned: PlannedFetch?

    /// Creates a request.
    package init(
        id: String, url: String, partialPath: String, archivePath: String, offset: Int64,
        keepsWrittenTail: Bool = false, expectedLength: Int64, expectedSHA256: String, validator: Validator?, maxBytesPerSecond: Int64 = 0,
        feed: GrowingArchive? = nil, chunked: ChunkedInstallTarget? = nil
    ) {
        self.id = id
        self.url = url
        self.partialPath = partialPath
        self.archivePath = archivePath
        self.offset = offset
        self.keepsWrittenTail = keepsWrittenTail
        self.expectedLength = expectedLength
        self.expectedSHA256 = expectedSHA256
        self.validator = validator
        self.maxBytesPerSecond = maxBytesPerSecond
        self.feed = feed
        self.chunked = chunked
    }
}
