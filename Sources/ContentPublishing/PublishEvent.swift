/// What a publish is doing, for a progress display: one event per object decision, byte progress of uploads,
/// and the catalog switch.
package enum PublishEvent: Sendable, Equatable {
    /// The server honours conditional writes.
    case probed(server: String)
    /// `name` is already stored with the right length: nothing sent.
    case present(name: String, bytes: Int64)
    /// `name` is being uploaded (`parts` > 1: multipart).
    case uploading(name: String, bytes: Int64, parts: Int)
    /// `sent` of `total` bytes of `name` are on their way.
    case progress(name: String, sent: Int64, total: Int64)
    /// `name` is stored.
    case uploaded(name: String, bytes: Int64)
    /// `catalog.json` now holds the new catalog (it replaced `previous`, if there was one).
    case switched(catalogVersion: UInt64, previous: UInt64?)
    /// `catalog.json` already held these exact bytes (a rerun after the switch).
    case alreadyLive(catalogVersion: UInt64)
    /// `catalog.json.sig` now matches the live catalog, for clients that predate `signatures/`.
    case legacySignatureUpdated
    /// A repository's `metadata/timestamp.json` was switched to this version (`previous`: the live one's, if any).
    case repositorySwitched(timestampVersion: Int64, previous: Int64?)
    /// The repository's timestamp was already live: nothing sent.
    case repositoryAlreadyLive(timestampVersion: Int64)
}

/// What a finished publish did.
package struct PublishSummary: Sendable, Equatable {
    /// Objects sent.
    package var uploadedObjects = 0
    /// Body bytes of the objects sent (parts retried not counted twice).
    package var uploadedBytes: Int64 = 0
    /// Objects already stored, left alone.
    package var presentObjects = 0
    /// The published catalog's version.
    package var catalogVersion: UInt64 = 0
    /// The catalog's SHA-256 (the name of its signature and history copies).
    package var catalogSHA256 = ""
}
