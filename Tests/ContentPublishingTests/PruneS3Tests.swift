import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// `iapcontent prune --keep N` on each real S3 server (SeaweedFS, moto): what the live and the last N catalogs
/// reference stays, the rest goes (found by ListObjectsV2, removed by DeleteObject), and clients keep downloading.
@Suite("Prune S3-compatible storage", .serialized)
struct PruneS3Tests {
    @Test(arguments: PublishBackend.available)
    func keepsWhatRecentCatalogsReference(_ backend: PublishBackend) throws {
        let fixture = try PublishFixture(backend)
        var archives: [String] = []
        for version in 1...3 {
            let site = try fixture.site("v\(version)", catalogVersion: UInt64(version), products: [
                .init(id: "com.example.a", version: "\(version).0", size: 30_000, seed: UInt64(version)),
            ])
            #expect(try fixture.publish(site, prefix: "p").status == 0)
            let catalog = try Catalog.decoder.decode(Catalog.self, from: Data(contentsOf: site.appendingPathComponent("catalog.json")))
            archives.append(catalog.products[0].path)
        }
        let arguments = ["prune", "s3://\(fixture.server.bucket)/p", "--endpoint", fixture.server.endpoint]
        let young = try CommandRunner.iapcontent(arguments + ["--keep", "1"], environment: fixture.server.credentials)
        #expect(young.status == 0, "\(young.stderr)")
        #expect(young.stdout.contains("deleted 0 objects"), "\(young.stdout)")

        let dry = try CommandRunner.iapcontent(arguments + ["--keep", "2", "--min-age", "0", "--dry-run"], environment: fixture.server.credentials)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would delete s3://\(fixture.server.bucket)/p/\(archives[0])"), "\(dry.stdout)")
        #expect(try fixture.fetch(fixture.server.publicURL("p/\(archives[0])")).status == 200)

        let pruned = try CommandRunner.iapcontent(arguments + ["--keep", "2", "--min-age", "0"], environment: fixture.server.credentials)
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(try fixture.fetch(fixture.server.publicURL("p/\(archives[0])")).status == 404)
        #expect(try fixture.fetch(fixture.server.publicURL("p/\(archives[1])")).status == 200)
        #expect(try fixture.reader("p").catalogVersion == 3)

        let tight = try CommandRunner.iapcontent(arguments + ["--keep", "1", "--min-age", "0"], environment: fixture.server.credentials)
        #expect(tight.status == 0, "\(tight.stderr)")
        #expect(try fixture.fetch(fixture.server.publicURL("p/\(archives[1])")).status == 404)
        #expect(try fixture.reader("p").catalogVersion == 3)
        #expect(try fixture.legacySignatureMatches("p"))
        let store = fixture.root.url.appendingPathComponent("client")
        let download = try CommandRunner.iapcontent([
            "download", "com.example.a", "--catalog", fixture.catalogURL("p"), "--store", store.path, "--public-key", fixture.publicKey,
        ])
        #expect(download.status == 0, "\(download.stderr)")
    }
}
