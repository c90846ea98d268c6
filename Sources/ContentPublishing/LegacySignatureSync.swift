internal import ContentDelivery
internal import Crypto
internal import Foundation
internal import SystemSupport

/// Makes `catalog.json.sig` the signature of whatever `catalog.json` holds now, for clients that read the
/// signature beside the catalog (those that predate `signatures/<sha256>.sig`).
///
/// The signature of the live catalog is always at `signatures/<sha256>.sig` (written before the catalog), so any
/// publisher can copy it, even one that lost a race: each round reads the live catalog, its signature by hash
/// and the legacy file, and replaces the legacy file by compare-and-swap when they differ; a catalog that
/// changed meanwhile starts another round. Old clients see a new catalog with the old signature between the
/// catalog switch and the end of this: they fail with `badSignature` and succeed when they retry.
struct LegacySignatureSync {
    /// The object store.
    let client: ObjectStoreClient
    /// Runs once before the first write (the conditional-write probe, when nothing probed the server yet).
    var beforeFirstWrite: () throws(PublishError) -> Void = {}

    /// Runs rounds until the legacy signature matches the live catalog (or 8 rounds of a catalog changing under
    /// it passed: the publisher that changed it syncs it too). Returns whether it wrote.
    func run() throws(PublishError) -> Bool {
        var wrote = false
        var probed = false
        for _ in 0..<8 {
            guard let live = try client.get(Catalog.fileName) else { return wrote }
            let sha = SHA256.hash(data: live.data).lowercaseHex
            guard let signature = try client.get(Catalog.signaturePath(catalogSHA256: sha)) else {
                return wrote  // published by hand or by an older tool: its own catalog.json.sig is all there is
            }
            let legacy = try client.get(Catalog.signatureFileName)
            if legacy?.data == signature.data { return wrote }
            let condition: ObjectStoreClient.Condition = legacy.flatMap(\.etag).map { .ifMatch($0) } ?? .createOnly
            if !probed {
                try beforeFirstWrite()
                probed = true
            }
            let outcome = try client.put(
                Catalog.signatureFileName, body: .data(signature.data), condition: condition,
                headers: ["Cache-Control: no-cache", "Content-Type: application/json"])
            guard outcome != .preconditionFailed else { continue }
            wrote = true
            // Done unless the catalog moved on between the read and the write (then the pair is checked again).
            if try client.get(Catalog.fileName)?.data == live.data { return wrote }
        }
        return wrote
    }
}
