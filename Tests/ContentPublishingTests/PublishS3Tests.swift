import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// `iapcontent publish` to each real S3 server (SeaweedFS, moto), then real clients reading the bucket anonymously.
@Suite("Publish to S3-compatible storage", .serialized)
struct PublishS3Tests {
    /// Publish (one archive by multipart upload), download with the real CLI, then a rerun that sends nothing.
    @Test(arguments: PublishBackend.available)
    func publishThenDownloadThenRerunSendsNothing(_ backend: PublishBackend) throws {
        let fixture = try PublishFixture(backend)
        let site = try fixture.site("v1", catalogVersion: 1, products: [
            .init(id: "com.example.big", size: 12 << 20, seed: 1),
            .init(id: "com.example.small", size: 40_000, seed: 2),
        ])
        let first = try fixture.publish(site, prefix: "store", arguments: ["--part-size", "5"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("(12.0 MiB, 3 parts)"), "\(first.stdout)")
        #expect(first.stdout.contains("switched       catalog.json to catalogVersion 1 (first publish)"))
        #expect(try fixture.reader("store").catalogVersion == 1)
        #expect(try fixture.legacySignatureMatches("store"))

        let store = fixture.root.url.appendingPathComponent("client")
        let download = try CommandRunner.iapcontent([
            "download", "com.example.big", "com.example.small", "--catalog", fixture.catalogURL("store"),
            "--store", store.path, "--public-key", fixture.publicKey,
        ])
        #expect(download.status == 0, "\(download.stderr)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: "com.example.big"))
        let data = try Data(contentsOf: installed.appendingPathComponent("Contents/data.bin"))
        #expect(data == PackageFixture.bytes(count: 12 << 20, seed: 1))

        let rerun = try fixture.publish(site, prefix: "store", arguments: ["--part-size", "5"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("0 objects sent (0 B)"), "\(rerun.stdout)")
        #expect(rerun.stdout.contains("already live   catalog.json at catalogVersion 1"))
    }

    /// A second catalog on top of the first: the old one's archives stay, the new one switches in, and a
    /// catalogVersion not above the live one is refused before any write.
    @Test(arguments: PublishBackend.available)
    func secondPublishSwitchesAndLowerVersionIsRefused(_ backend: PublishBackend) throws {
        let fixture = try PublishFixture(backend)
        let v1 = try fixture.site("v1", catalogVersion: 5, products: [.init(id: "com.example.a", size: 30_000, seed: 1)])
        let v2 = try fixture.site("v2", catalogVersion: 6, products: [.init(id: "com.example.a", version: "2.0", size: 30_000, seed: 2)])
        let older = try fixture.site("old", catalogVersion: 4, products: [.init(id: "com.example.a", size: 30_000, seed: 3)])
        #expect(try fixture.publish(v1, prefix: "p").status == 0)
        let second = try fixture.publish(v2, prefix: "p")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("catalogVersion 6 (was 5)"))
        #expect(try fixture.reader("p").catalogVersion == 6)
        #expect(try fixture.legacySignatureMatches("p"))
        let refused = try fixture.publish(older, prefix: "p")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("is at catalogVersion 6"), "\(refused.stderr)")
        #expect(try fixture.reader("p").catalogVersion == 6)
    }

    /// A server that ignores `If-None-Match` is refused, naming it, before anything but the probe is written.
    @Test(.needsSeaweedFS) func serverIgnoringConditionalWritesIsRefusedBeforeAnyWrite() throws {
        let fixture = try PublishFixture()
        let site = try fixture.site("v1", catalogVersion: 1, products: [.init(id: "com.example.a", size: 30_000, seed: 1)])
        let server = try UnconditionalObjectStore()
        defer { server.stop() }
        let result = try CommandRunner.iapcontent(
            ["publish", site.path, "s3://bucket/store", "--endpoint", server.endpoint],
            environment: fixture.server.credentials)
        #expect(result.status == 1)
        #expect(result.stderr.contains("the server at \(server.endpoint) ignores If-None-Match"), "\(result.stderr)")
        let writes = server.records.filter { $0.method != "GET" && $0.method != "HEAD" }
        #expect(!writes.isEmpty)
        for write in writes {
            #expect(write.target.hasPrefix("/bucket/store/probes/"), "\(write.method) \(write.target)")
        }
    }
}
