@testable import ContentPublishing
import Foundation
import Testing
import TestSupport

/// What `publish` and `prune` put on the wire, recorded by ``RecordingObjectStore`` and held against the S3 API
/// reference: each operation's method, query, headers, content type and body; and every object write's
/// condition (create-only for content-addressed objects, compare-and-swap for the catalog files).
@Suite("Publish: requests on the wire", .serialized)
struct PublishWireTests {
    /// The S3 operation a recorded request is, told from its method and query as a server tells it.
    static func operation(of record: RecordingObjectStore.Record) -> ObjectRequest.Operation? {
        let query = record.query
        switch record.method {
        case "GET": return query["list-type"] != nil ? .listObjectsV2 : .getObject
        case "HEAD": return .headObject
        case "PUT": return query["uploadId"] != nil ? .uploadPart : .putObject
        case "POST": return query["uploads"] != nil ? .createMultipartUpload : query["uploadId"] != nil ? .completeMultipartUpload : nil
        case "DELETE": return query["uploadId"] != nil ? .abortMultipartUpload : .deleteObject
        default: return nil
        }
    }

    /// Publishes a catalog with one archive just over the part size (a real two-part multipart upload) and a
    /// small one, then a second catalog on top (the compare-and-swap of both catalog files), then prunes; with
    /// `abort`, also uploads other bytes under the multipart archive's name, which is refused and aborted.
    static func scenario(abort: Bool) throws -> (RecordingObjectStore, PublishFixture, [RecordingObjectStore.Record]) {
        let recorder = try RecordingObjectStore()
        let fixture = try PublishFixture(server: recorder)
        let v1 = try fixture.site("v1", catalogVersion: 1, products: [
            .init(id: "com.example.big", size: (5 << 20) + (100 << 10), seed: 1),
            .init(id: "com.example.small", size: 30_000, seed: 2),
        ])
        let v2 = try fixture.site("v2", catalogVersion: 2, products: [
            .init(id: "com.example.big", size: (5 << 20) + (100 << 10), seed: 1),
            .init(id: "com.example.small", version: "2.0", size: 30_000, seed: 3),
        ])
        let first = try fixture.publish(v1, prefix: "store", arguments: ["--part-size", "5"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("2 parts)"), "\(first.stdout)")
        let second = try fixture.publish(v2, prefix: "store", arguments: ["--part-size", "5"])
        #expect(second.status == 0, "\(second.stderr)")
        let prune = try CommandRunner.iapcontent(
            ["prune", "s3://\(recorder.bucket)/store", "--endpoint", recorder.endpoint, "--keep", "1", "--min-age", "0"],
            environment: recorder.credentials)
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(prune.stdout.contains("deleted s3://iap/store/archives/"), "\(prune.stdout)")
        if abort {
            let location = try ObjectStoreLocation("s3://iap/store", endpoint: recorder.endpoint, region: "us-east-1", environment: [:])
            let client = ObjectStoreClient(
                location: location, credentials: ObjectStoreCredentials(accessKeyID: "recorder", secretAccessKey: "recorder-secret"))
            let big = try #require(recorder.records.first { $0.query["uploads"] != nil }).key
            let other = fixture.root.url.appendingPathComponent("other.bin")
            try PackageFixture.bytes(count: 6 << 20, seed: 9).write(to: other)
            let upload = MultipartUpload(client: client, partSize: 5 << 20, parallel: 2) { _ in }
            let name = String(big.dropFirst("store/".count))
            #expect(try upload.upload(name, path: other.path, length: 6 << 20, headers: []) == .preconditionFailed)
        }
        return (recorder, fixture, recorder.records)
    }

    /// Every request of a publish, a second publish, a prune and a refused multipart upload matches what the S3 API
    /// reference asks of its operation: the method and query that name it, SigV4 headers, a `Content-Length` equal
    /// to the body for the operations with a body and no body for the others, no chunked encoding, the content type
    /// (`application/xml` and a well-formed `CompleteMultipartUpload` document, parts in order, for the
    /// completion; the object's own type on PutObject and CreateMultipartUpload; none on the rest; never libcurl's
    /// form type), and every operation kind seen at least once.
    @Test func everyRequestMatchesTheS3Reference() throws {
        let (recorder, _, records) = try Self.scenario(abort: true)
        defer { recorder.stop() }
        var seen = Set<ObjectRequest.Operation>()
        for record in records {
            let label = "\(record.method) \(record.path)?\(record.query.keys.sorted().joined(separator: "&"))"
            guard let operation = Self.operation(of: record) else {
                Issue.record("not an S3 operation the publisher uses: \(label)")
                continue
            }
            seen.insert(operation)
            #expect(record.method == operation.method.rawValue, "\(label)")
            let headers = record.headers
            #expect(headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=recorder/") == true, "\(label)")
            #expect(headers["authorization"]?.contains("/us-east-1/s3/aws4_request") == true, "\(label)")
            #expect(headers["x-amz-date"] != nil, "\(label)")
            #expect(headers["x-amz-content-sha256"] == "UNSIGNED-PAYLOAD", "\(label)")
            #expect(headers["transfer-encoding"] == nil, "\(label): S3 wants Content-Length, not chunked")
            #expect(headers["content-type"]?.lowercased().contains("x-www-form-urlencoded") != true, "\(label): libcurl's form type")
            switch operation {
            case .getObject, .headObject, .deleteObject, .abortMultipartUpload, .listObjectsV2:
                #expect(record.body.isEmpty, "\(label) has a body")
                #expect(headers["content-type"] == nil, "\(label): \(headers["content-type"] ?? "")")
                #expect(headers["if-none-match"] == nil && headers["if-match"] == nil, "\(label)")
                if operation == .listObjectsV2 {
                    #expect(record.path == "/iap", "\(label): ListObjectsV2 is a request on the bucket")
                    #expect(record.query["list-type"] == "2" && record.query["prefix"]?.hasPrefix("store/") == true, "\(label)")
                }
                if operation == .abortMultipartUpload { #expect(record.query["uploadId"]?.isEmpty == false, "\(label)") }
            case .putObject:
                #expect(headers["content-length"] == String(record.body.count), "\(label)")
                #expect(headers["content-type"] != nil, "\(label): PutObject stores the object's Content-Type")
                #expect(headers["cache-control"] != nil, "\(label)")
            case .createMultipartUpload:
                #expect(record.body.isEmpty, "\(label) has a body")
                #expect(headers["content-type"] == "application/octet-stream", "\(label): \(headers["content-type"] ?? "none")")
                #expect(record.query["uploads"] == "", "\(label)")
            case .uploadPart:
                #expect(headers["content-length"] == String(record.body.count) && !record.body.isEmpty, "\(label)")
                #expect(headers["if-none-match"] == nil && headers["if-match"] == nil, "\(label)")
                #expect(Int(record.query["partNumber"] ?? "").map { (1...10_000).contains($0) } == true, "\(label)")
            case .completeMultipartUpload:
                #expect(headers["content-type"] == "application/xml", "\(label): \(headers["content-type"] ?? "none")")
                #expect(headers["content-length"] == String(record.body.count), "\(label)")
                guard case .success(let document) = S3XML.parse(record.body) else {
                    Issue.record("\(label): the body is not XML")
                    continue
                }
                #expect(document.name == "CompleteMultipartUpload", "\(label)")
                let numbers = document.children("Part").compactMap { $0.value("PartNumber").flatMap { Int($0) } }
                #expect(numbers == Array(1...max(numbers.count, 1)), "\(label): parts \(numbers)")
                #expect(document.children("Part").allSatisfy { $0.value("ETag")?.isEmpty == false }, "\(label)")
            }
        }
        #expect(seen == Set(ObjectRequest.Operation.allCases), "not seen: \(Set(ObjectRequest.Operation.allCases).subtracting(seen))")
    }

    /// The net under the create-only promise: every object write (PutObject, CompleteMultipartUpload) carries its
    /// condition. Archives, manifests, signatures and history entries: `If-None-Match: *` and nothing else.
    /// `catalog.json` and `catalog.json.sig`: `If-None-Match: *` while no earlier write of them succeeded, then
    /// `If-Match` with the ETag of the version the publisher read. Probes: a condition. Nothing else is written.
    @Test func everyObjectWriteCarriesItsCondition() throws {
        let (recorder, _, records) = try Self.scenario(abort: false)
        defer { recorder.stop() }
        var etags: [String: String] = [:]  // the ETag each catalog file was last written with, by key
        var writes = 0
        for record in records {
            guard let operation = Self.operation(of: record), operation == .putObject || operation == .completeMultipartUpload else {
                continue
            }
            writes += 1
            let label = "\(operation.rawValue) \(record.key)"
            let name = String(record.key.dropFirst("store/".count))
            let ifNoneMatch = record.headers["if-none-match"]
            let ifMatch = record.headers["if-match"]
            if ["archives/", "manifests/", "signatures/", "catalogs/"].contains(where: { name.hasPrefix($0) }) {
                #expect(ifNoneMatch == "*" && ifMatch == nil, "\(label): content-addressed, must be create-only; If-None-Match \(ifNoneMatch ?? "absent"), If-Match \(ifMatch ?? "absent")")
            } else if name == "catalog.json" || name == "catalog.json.sig" {
                if let previous = etags[name] {
                    #expect(ifMatch == previous && ifNoneMatch == nil, "\(label): replaces \(previous), must be compare-and-swap; If-Match \(ifMatch ?? "absent")")
                } else {
                    #expect(ifNoneMatch == "*" && ifMatch == nil, "\(label): first write, must be create-only; If-None-Match \(ifNoneMatch ?? "absent")")
                }
            } else if name.hasPrefix("probes/") {
                #expect(ifNoneMatch == "*" || ifMatch != nil, "\(label): the probe writes conditionally")
            } else {
                Issue.record("\(label): publish writes nothing else")
            }
            if record.status == 200, name == "catalog.json" || name == "catalog.json.sig" {
                etags[name] = record.etag
            }
        }
        #expect(writes >= 12, "only \(writes) writes recorded")
        #expect(etags.count == 2)
    }

    /// `--ca-file` reaches every request of `publish` and `prune`: an https endpoint whose authority is not the
    /// one given fails at the first request with a message naming the CA file and the option; an unreadable one
    /// likewise; the right one gets past TLS (to nginx, which is no S3 server and refuses the probe's PUT).
    @Test func caFileReachesPublishAndPrune() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let stranger = try TestCertificates()
        defer { stranger.remove() }
        let nginx = try Nginx(tls: certificates, clientCertificates: false)
        defer { nginx.stop() }
        let recorder = try RecordingObjectStore()
        let fixture = try PublishFixture(server: recorder)
        let site = try fixture.site("v1", catalogVersion: 1, products: [.init(id: "com.example.a", size: 10_000, seed: 1)])
        let environment = recorder.credentials
        func publish(_ extra: [String]) throws -> CommandRunner.Result {
            try CommandRunner.iapcontent(["publish", site.path, "s3://iap/store", "--endpoint", nginx.baseURL] + extra, environment: environment)
        }
        let wrong = try publish(["--ca-file", stranger.authority])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("not signed by the CA file \(stranger.authority) (--ca-file"), "\(wrong.stderr)")
        let missing = try publish(["--ca-file", "/nonexistent/ca.pem"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent/ca.pem"), "\(missing.stderr)")
        let none = try publish([])
        #expect(none.status == 1)
        #expect(none.stderr.contains("not signed by the system's certificate authorities"), "\(none.stderr)")
        let right = try publish(["--ca-file", certificates.authority])
        #expect(right.status == 1)
        #expect(right.stderr.contains("was refused: HTTP 405"), "\(right.stderr)")
        #expect(!right.stderr.contains("certificate"), "\(right.stderr)")
        let prune = try CommandRunner.iapcontent(
            ["prune", "s3://iap/store", "--keep", "1", "--endpoint", nginx.baseURL, "--ca-file", stranger.authority], environment: environment)
        #expect(prune.status == 1)
        #expect(prune.stderr.contains("not signed by the CA file \(stranger.authority)"), "\(prune.stderr)")
    }
}
