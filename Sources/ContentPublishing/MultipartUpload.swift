internal import CCurl
internal import CurlTransport
internal import Foundation

/// A large object written by S3's multipart upload: parts of `partSize` bytes read straight from the file as they
/// are sent (memory stays a few libcurl buffers whatever the size), `parallel` of them at once in one libcurl multi
/// handle owned by the calling thread, then completed create-only (`If-None-Match: *`), so a concurrent or earlier
/// upload of the same content-addressed object wins and this one is aborted.
struct MultipartUpload {
    /// The client (its location, credentials and request hook).
    let client: ObjectStoreClient
    /// Bytes per part (S3: at least 5 MiB except the last, at most 10 000 parts).
    let partSize: Int64
    /// Parts in flight at once.
    let parallel: Int
    /// Called with the body bytes sent so far (parts retried count again).
    let progress: (Int64) -> Void

    /// Uploads the `length` bytes of `path` as `name`, create-only.
    func upload(_ name: String, path: String, length: Int64, headers: [String]) throws(PublishError) -> ObjectStoreClient.WriteOutcome {
        let location = client.location
        let what = location.displayName(name)
        let started = try client.send(.createMultipartUpload(
            url: location.url(name, query: [("uploads", "")]), headers: headers, what: what))
        guard started.isSuccess, case .success(let result) = S3XML.parse(started.body),
              result.name == "InitiateMultipartUploadResult", let uploadID = result.value("UploadId"), !uploadID.isEmpty
        else {
            throw client.refusal(started, "POST (start multipart upload)", name)
        }
        let etags: [String]
        do throws(PublishError) {
            etags = try sendParts(name, uploadID: uploadID, path: path, length: length)
        } catch {
            abort(name, uploadID: uploadID)
            throw error
        }
        var xml = "<CompleteMultipartUpload>"
        for (index, etag) in etags.enumerated() {
            xml += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(S3XML.escape(etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let completeURL = location.url(name, query: [("uploadId", uploadID)])
        var done = try client.send(.completeMultipartUpload(
            url: completeURL, xml: xml, conditions: ObjectStoreClient.Condition.createOnly.header, what: what))
        if done.status == 501 {
            // A server that cannot complete conditionally: the HEAD before the upload found no object, so
            // complete plainly (content-addressed: a concurrent writer of this name writes the same bytes).
            done = try client.send(.completeMultipartUpload(url: completeURL, xml: xml, conditions: [], what: what))
        }
        if done.status == 412 {
            abort(name, uploadID: uploadID)
            return .preconditionFailed
        }
        // S3 may answer 200 and still fail the completion, in the body: only a CompleteMultipartUploadResult is
        // success (moto names the same document CompleteMultipartUploadResponse).
        guard done.isSuccess, case .success(let result) = S3XML.parse(done.body),
              ["CompleteMultipartUploadResult", "CompleteMultipartUploadResponse"].contains(result.name)
        else {
            abort(name, uploadID: uploadID)
            throw client.refusal(done, "POST (complete multipart upload)", name)
        }
        return .written(etag: result.value("ETag"))
    }

    /// Sends every part, `parallel` at a time, each retried up to three times (not after a timeout); their ETags in
    /// part order.
    private func sendParts(_ name: String, uploadID: String, path: String, length: Int64) throws(PublishError) -> [String] {
        let location = client.location
        let count = Int((length + partSize - 1) / partSize)
        var etags = [String?](repeating: nil, count: max(count, 1))
        var pending = Array(0..<max(count, 1))
        var attempts = [Int](repeating: 0, count: max(count, 1))
        var active: [UnsafeMutableRawPointer: (part: Int, transfer: ObjectTransfer)] = [:]
        var finishedBytes: Int64 = 0
        let multi: MultiHandle
        do { multi = try MultiHandle(maxConnectionsPerHost: parallel) } catch {
            throw PublishError("cannot start the upload of \(location.displayName(name)): \(error)")
        }
        defer { for (_, entry) in active { multi.remove(entry.transfer.easy) } }
        while !pending.isEmpty || !active.isEmpty {
            while active.count < parallel, !pending.isEmpty {
                let part = pending.removeFirst()
                attempts[part] += 1
                let offset = Int64(part) * partSize
                let request = ObjectRequest.uploadPart(
                    url: location.url(name, query: [("partNumber", String(part + 1)), ("uploadId", uploadID)]),
                    body: .file(path: path, offset: offset, length: min(partSize, length - offset)),
                    what: "\(location.displayName(name)) part \(part + 1) of \(count)")
                let transfer = try ObjectTransfer(request, client: client, limit: 64 << 10)
                guard multi.add(transfer.easy) else { throw PublishError("cannot add part \(part + 1) of \(location.displayName(name)) to the transfer") }
                active[transfer.easy.raw] = (part, transfer)
            }
            _ = multi.perform()
            for (handle, result) in multi.completed() {
                guard let (part, transfer) = active.removeValue(forKey: handle) else { continue }
                multi.remove(transfer.easy)
                client.afterRequest(transfer.request)
                let response = transfer.response
                if result == CURLE_OK, response.isSuccess, let etag = response.etag {
                    etags[part] = etag
                    finishedBytes += transfer.request.body.length
                    continue
                }
                let failure = result == CURLE_OK
                    ? client.refusal(response, "PUT (part \(part + 1))", name) : transfer.failure(result)
                // A part that timed out is not retried (as every request of the client): the message says which timeout.
                guard attempts[part] < 4, !transfer.isFinal, result != CURLE_OK || ObjectStoreClient.isTransient(response.status) else {
                    throw failure
                }
                Thread.sleep(forTimeInterval: 0.25 * Double(1 << attempts[part]))
                pending.insert(part, at: 0)
            }
            progress(finishedBytes + active.values.reduce(0) { $0 + $1.transfer.sent })
            if !active.isEmpty { multi.poll(timeoutMilliseconds: 200) }
        }
        return etags.map { $0! }
    }

    /// Aborts the upload so its parts stop costing storage (best effort: a failure leaves them to the bucket's
    /// lifecycle rule for incomplete uploads).
    private func abort(_ name: String, uploadID: String) {
        let location = client.location
        _ = try? client.send(.abortMultipartUpload(
            url: location.url(name, query: [("uploadId", uploadID)]), what: location.displayName(name)))
    }
}
