@testable import ContentPublishing
import Foundation
import Testing
import TestSupport

/// The multipart upload against each real S3 server (SeaweedFS, moto): parts in parallel from one multi handle,
/// completed create-only, so a second upload of the same name is refused at completion and aborted, leaving the
/// first intact.
@Suite("Publish: multipart upload", .serialized)
struct MultipartUploadTests {
    @Test(arguments: PublishBackend.available)
    func secondCompletionOfTheSameNameIsRefusedAndTheFirstStays(_ backend: PublishBackend) throws {
        let weed: any PublishTestServer = backend == .seaweedFS ? try SeaweedFS() : try MotoServer()
        defer { weed.stop() }
        let folder = try TemporaryDirectory("multipart")
        let file = folder.url.appendingPathComponent("object.bin")
        let bytes = PackageFixture.bytes(count: 11 << 20, seed: 7)
        try bytes.write(to: file)
        let location = try ObjectStoreLocation("s3://\(weed.bucket)/m", endpoint: weed.endpoint, region: "us-east-1", environment: [:])
        var requests: [String] = []
        let client = ObjectStoreClient(
            location: location, credentials: ObjectStoreCredentials(accessKeyID: SeaweedFS.accessKey, secretAccessKey: SeaweedFS.secretKey),
            afterRequest: { requests.append("\($0.method.rawValue) \($0.what)") })
        var progress: [Int64] = []
        let upload = MultipartUpload(client: client, partSize: 5 << 20, parallel: 3) { progress.append($0) }
        let first = try upload.upload("archives/x.bin", path: file.path, length: Int64(bytes.count), headers: [])
        guard case .written = first else { Issue.record("first upload: \(first)"); return }
        #expect(requests.filter { $0.contains(" part ") }.count == 3)
        #expect(progress.last == Int64(bytes.count))

        let other = folder.url.appendingPathComponent("other.bin")
        try PackageFixture.bytes(count: 11 << 20, seed: 8).write(to: other)
        requests = []
        #expect(try upload.upload("archives/x.bin", path: other.path, length: Int64(bytes.count), headers: []) == .preconditionFailed)
        #expect(requests.last?.hasPrefix("DELETE") == true)  // the refused upload was aborted
        let stored = try #require(try client.get("archives/x.bin"))
        #expect(stored.data == bytes)
    }
}
