internal import ContentDelivery
package import Foundation

/// Publishes a TUF repository folder (`iapcontent repo`) to S3-compatible object storage, sending only what the
/// published copy lacks, so that every reader at every instant sees one consistent repository:
/// 1. read the live `metadata/timestamp.json` and its ETag (refuse one newer than the folder's);
/// 2. probe that the server honours conditional writes (``ConditionalWriteProbe``);
/// 3. the targets the changed bins added, create-only (skipped when stored with their length; hashed before they
///    are sent);
/// 4. the versioned metadata the live timestamp does not reach (the changed bins, the top-level targets, the
///    snapshot, the new snapshot-tree nodes), create-only; then the root versions the copy lacks, newest first;
/// 5. `metadata/timestamp.json` by compare-and-swap (`If-Match` the ETag read in 1): nothing is current until then,
///    and of two publishers exactly one wins.
///
/// One new version of one product is its archive and manifest, two bins, the snapshot, two or three tree nodes and
/// the timestamp. Killed at any point, the bucket still serves the repository it served; run it again to finish.
package struct RepositoryPublisher {
    /// The object store.
    package let client: ObjectStoreClient
    /// The repository folder (`iapcontent repo init` made it).
    package let folder: URL
    /// Part size, parallelism, events and the test hook before the switch.
    package var options = PublishOptions()

    /// The key of the timestamp, the one object replaced.
    static let timestampKey = "metadata/timestamp.json"

    /// A publisher of the repository in `folder` through `client`.
    package init(client: ObjectStoreClient, folder: URL) {
        self.client = client
        self.folder = folder
    }

    /// Whether `folder` is a repository folder (it has `metadata/timestamp.json`) rather than a catalog folder.
    package static func isRepository(_ folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(timestampKey).path)
    }

    /// Publishes; see the type's documentation for the order.
    /// - Throws: ``PublishError``; with ``PublishError/lostRace`` when another publisher replaced the timestamp first.
    package func publish() throws(PublishError) -> PublishSummary {
        let live = try client.get(Self.timestampKey)
        let upload: RepositoryUpload
        do { upload = try TUFRepository(directory: folder).upload(since: live?.data) } catch {
            throw PublishError("\(folder.path): \(error)")
        }
        var summary = PublishSummary(catalogVersion: UInt64(upload.timestampVersion))
        if upload.alreadyLive {
            options.onEvent(.repositoryAlreadyLive(timestampVersion: upload.timestampVersion))
            return summary
        }
        try ConditionalWriteProbe.run(client)
        options.onEvent(.probed(server: client.location.serverName))
        let uploads = ObjectUploads(client: client, folder: folder, options: options)
        for target in upload.targets {
            let object = try PublishedObject(
                name: target.name, folder: folder, length: target.length, sha256: target.sha256 ?? "", kind: .archive)
            try uploads.store(object, summary: &summary)
        }
        let immutable = ["Cache-Control: public, max-age=31536000, immutable", "Content-Type: application/json"]
        for file in upload.metadata {
            try uploads.storeOnce(file.name, data: try read(file.url), headers: immutable, summary: &summary)
        }
        for root in upload.roots {
            if try client.head(root.name) != nil { break }
            try uploads.storeOnce(root.name, data: try read(root.url), headers: immutable, summary: &summary)
        }
        options.beforeSwitch()
        try switchTimestamp(to: upload.timestamp, replacing: live)
        options.onEvent(.repositorySwitched(
            timestampVersion: upload.timestampVersion,
            previous: live.flatMap { try? SignedMetadata<TimestampMetadata>(parsing: $0.data, roleName: "timestamp").signed.version }))
        return summary
    }

    /// Step 5: the compare-and-swap. A 412 whose live bytes are ours is a retried write that had landed.
    private func switchTimestamp(to data: Data, replacing live: (data: Data, etag: String?)?) throws(PublishError) {
        let condition: ObjectStoreClient.Condition
        if let live {
            guard let etag = live.etag else {
                throw PublishError("\(client.location.serverName) sent no ETag for \(client.location.displayName(Self.timestampKey)), so it cannot be replaced safely; use a server that sends ETags")
            }
            condition = .ifMatch(etag)
        } else {
            condition = .createOnly
        }
        let headers = ["Cache-Control: no-cache", "Content-Type: application/json"]
        guard try client.put(Self.timestampKey, body: .data(data), condition: condition, headers: headers) == .preconditionFailed else { return }
        if let now = try client.get(Self.timestampKey), now.data == data { return }
        throw PublishError(
            "\(client.location.displayName(Self.timestampKey)) changed while this publish ran (another publisher replaced it first), so it was left as that publisher wrote it; nothing it references was touched. Publish from the folder that wrote it; what was sent is kept and will not be sent twice",
            lostRace: true)
    }

    private func read(_ url: URL) throws(PublishError) -> Data {
        do { return try Data(contentsOf: url) } catch { throw PublishError("cannot read \(url.path): \(error); check permissions") }
    }
}
