internal import ContentDelivery
package import Foundation

/// Publishes a catalog folder to S3-compatible object storage so that every reader, at every instant, sees
/// either the old catalog or the new one, each with a valid signature and every object it names present.
///
/// The order makes that so:
/// 1. read the live `catalog.json` and its ETag (refuse a catalogVersion not above it);
/// 2. probe that the server honours conditional writes (``ConditionalWriteProbe``);
/// 3. every manifest, then every archive, create-only (`If-None-Match: *`; one already stored is checked by
///    length and skipped, so a rerun sends nothing twice);
/// 4. the signature as `signatures/<sha256>.sig` and the catalog's history copy `catalogs/<sha256>.json`,
///    create-only: nothing references them yet;
/// 5. `catalog.json` by compare-and-swap (`If-Match` the ETag read in 1, or `If-None-Match: *` when there was
///    none): of two publishers at once exactly one wins, the other stops having changed nothing referenced;
/// 6. `catalog.json.sig`, for clients that predate `signatures/` (``LegacySignatureSync``).
///
/// Killed at any point, the bucket still serves a consistent catalog; run it again to finish.
package struct CatalogPublisher {
    /// The object store.
    package let client: ObjectStoreClient
    /// The catalog folder (`iapcontent catalog --output`).
    package let folder: URL
    /// Part size, parallelism, events and the test hook before the switch.
    package var options = PublishOptions()

    /// A publisher of `folder` through `client`.
    package init(client: ObjectStoreClient, folder: URL) {
        self.client = client
        self.folder = folder
    }

    /// Publishes; see the type's documentation for the order.
    /// - Throws: ``PublishError``; with ``PublishError/lostRace`` when another publisher replaced the catalog first.
    package func publish() throws(PublishError) -> PublishSummary {
        let source = try PublishSource(folder: folder)
        var summary = PublishSummary(catalogVersion: source.catalog.catalogVersion, catalogSHA256: source.catalogSHA256)
        let live = try client.get(Catalog.fileName)
        if let live, live.data == source.catalogData {
            // A rerun after the switch: only the legacy signature may be missing.
            options.onEvent(.alreadyLive(catalogVersion: source.catalog.catalogVersion))
            var sync = LegacySignatureSync(client: client)
            sync.beforeFirstWrite = { [client, onEvent = options.onEvent] () throws(PublishError) in
                try ConditionalWriteProbe.run(client)
                onEvent(.probed(server: client.location.serverName))
            }
            if try sync.run() { options.onEvent(.legacySignatureUpdated) }
            return summary
        }
        let previous = try live.map { live throws(PublishError) in try liveVersion(live.data) }
        if let previous, previous >= source.catalog.catalogVersion {
            throw PublishError("\(client.location.displayName(Catalog.fileName)) is at catalogVersion \(previous), not below this catalog's \(source.catalog.catalogVersion): clients would refuse it as a rollback; rebuild with `iapcontent catalog --catalog-version \(previous + 1)` or higher")
        }
        try ConditionalWriteProbe.run(client)
        options.onEvent(.probed(server: client.location.serverName))

        for object in source.objects {
            try uploads.store(object, summary: &summary)
        }
        let immutable = ["Cache-Control: public, max-age=31536000, immutable", "Content-Type: application/json"]
        try uploads.storeOnce(Catalog.signaturePath(catalogSHA256: source.catalogSHA256), data: source.signatureData, headers: immutable, summary: &summary)
        try uploads.storeOnce(Catalog.historyPath(catalogSHA256: source.catalogSHA256), data: source.catalogData, headers: immutable, summary: &summary)

        options.beforeSwitch()
        try switchCatalog(to: source, replacing: live?.etag, liveExisted: live != nil)
        options.onEvent(.switched(catalogVersion: source.catalog.catalogVersion, previous: previous))
        if try LegacySignatureSync(client: client).run() { options.onEvent(.legacySignatureUpdated) }
        return summary
    }

    /// The catalogVersion of the live catalog's bytes.
    private func liveVersion(_ data: Data) throws(PublishError) -> UInt64 {
        do { return try Catalog.decoder.decode(Catalog.self, from: data).catalogVersion } catch {
            throw PublishError("\(client.location.displayName(Catalog.fileName)) is not a catalog (\(error)); move it away or publish under another prefix")
        }
    }

    /// Step 5: the compare-and-swap. A 412 whose live bytes are ours is a retried write that had landed.
    private func switchCatalog(to source: PublishSource, replacing etag: String?, liveExisted: Bool) throws(PublishError) {
        let condition: ObjectStoreClient.Condition
        if liveExisted {
            guard let etag else {
                throw PublishError("\(client.location.serverName) sent no ETag for \(client.location.displayName(Catalog.fileName)), so it cannot be replaced safely; use a server that sends ETags")
            }
            condition = .ifMatch(etag)
        } else {
            condition = .createOnly
        }
        let headers = ["Cache-Control: no-cache", "Content-Type: application/json"]
        let outcome = try client.put(Catalog.fileName, body: .data(source.catalogData), condition: condition, headers: headers)
        guard outcome == .preconditionFailed else { return }
        guard let now = try client.get(Catalog.fileName) else {
            throw PublishError("\(client.location.displayName(Catalog.fileName)) exists but cannot be read back: check that the credentials may s3:GetObject under the prefix; nothing it references was touched")
        }
        if now.data == source.catalogData { return }
        throw PublishError(
            "\(client.location.displayName(Catalog.fileName)) changed while this publish ran (another publisher replaced it first), so it was left as that publisher wrote it; nothing it references was touched. Rebuild the catalog on top of the new one and publish again; the archives sent are kept and will not be sent twice",
            lostRace: true)
    }

    /// The uploads of steps 3 and 4.
    private var uploads: ObjectUploads {
        ObjectUploads(client: client, folder: folder, options: options)
    }
}
