internal import Foundation

/// The two kinds of write both publishers make, each safe to repeat: a content-addressed object (skipped when stored
/// with its length, hashed locally before it is sent, create-only, by multipart upload past ``partSize``), and a small
/// immutable object (create-only; one already stored must hold the same bytes).
struct ObjectUploads {
    let client: ObjectStoreClient
    /// The folder published (named in errors).
    let folder: URL
    let options: PublishOptions
    var partSize: Int64 { options.partSize }
    var onEvent: (PublishEvent) -> Void { options.onEvent }

    /// A content-addressed object: skipped when stored with the right length, else verified locally and sent create-only.
    func store(_ object: PublishedObject, summary: inout PublishSummary) throws(PublishError) {
        if try isStored(object.name, length: object.length) {
            summary.presentObjects += 1
            onEvent(.present(name: object.name, bytes: object.length))
            return
        }
        try object.verifyLocalBytes()
        let multipart = object.length > partSize
        let parts = multipart ? Int((object.length + partSize - 1) / partSize) : 1
        onEvent(.uploading(name: object.name, bytes: object.length, parts: parts))
        let outcome: ObjectStoreClient.WriteOutcome
        if multipart {
            let upload = MultipartUpload(client: client, partSize: partSize, parallel: options.parallelParts) { [onEvent] sent in
                onEvent(.progress(name: object.name, sent: sent, total: object.length))
            }
            outcome = try upload.upload(object.name, path: object.file.path, length: object.length, headers: object.headers)
        } else {
            outcome = try client.put(
                object.name, body: .file(path: object.file.path, offset: 0, length: object.length), condition: .createOnly,
                headers: object.headers)
        }
        if outcome == .preconditionFailed {
            // Written meanwhile (another publisher, or a retried request that had landed): same name, same bytes.
            guard try isStored(object.name, length: object.length) else {
                throw PublishError("\(client.location.displayName(object.name)) exists (a create-only write was refused) but HEAD does not show it: check that the credentials may s3:GetObject under the prefix")
            }
            summary.presentObjects += 1
            onEvent(.present(name: object.name, bytes: object.length))
            return
        }
        summary.uploadedObjects += 1
        summary.uploadedBytes += object.length
        onEvent(.uploaded(name: object.name, bytes: object.length))
    }

    /// Whether `name` is stored with `length` bytes; one of another length is refused (its name promises other bytes).
    func isStored(_ name: String, length: Int64) throws(PublishError) -> Bool {
        guard let stored = try client.head(name) else { return false }
        guard stored.length == length else {
            throw PublishError("\(client.location.displayName(name)) is stored with \(stored.length) bytes, not the \(length) its name stands for: it is damaged; delete it (it is content-addressed, nothing else can be there) and publish again")
        }
        return true
    }

    /// A small immutable object, create-only; one already stored must hold the same bytes.
    func storeOnce(_ name: String, data: Data, headers: [String], summary: inout PublishSummary) throws(PublishError) {
        let outcome: ObjectStoreClient.WriteOutcome
        if try client.head(name) != nil {
            outcome = .preconditionFailed
        } else {
            outcome = try client.put(name, body: .data(data), condition: .createOnly, headers: headers)
        }
        switch outcome {
        case .written:
            summary.uploadedObjects += 1
            summary.uploadedBytes += Int64(data.count)
            onEvent(.uploaded(name: name, bytes: Int64(data.count)))
        case .preconditionFailed:
            guard let bytes = try client.get(name), bytes.data == data else {
                throw PublishError("\(client.location.displayName(name)) already holds other bytes than \(folder.path)'s; it was signed with another key: delete it, or publish this catalog under another prefix")
            }
            summary.presentObjects += 1
            onEvent(.present(name: name, bytes: Int64(data.count)))
        }
    }
}
