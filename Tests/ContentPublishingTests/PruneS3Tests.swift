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

    /// A catalog that offers a precomputed patch: `publish` uploads it before the catalog, and `prune` keeps it while
    /// the live catalog names it.
    @Test(arguments: PublishBackend.available)
    func patchesArePublishedAndKeptWhileNamed(_ backend: PublishBackend) throws {
        let fixture = try PublishFixture(backend)
        let root = fixture.root.url, dist = root.appendingPathComponent("dist-patched")
        var folders: [URL] = []
        for (version, seed) in [("1.0", UInt64(1)), ("2.0", UInt64(1))] {
            var data = PackageFixture.text(count: 40_000, seed: seed)
            if version == "2.0" { data.append(contentsOf: Data("one more line\n".utf8)) }
            let folder = root.appendingPathComponent("content-patched-\(version)")
            try PackageFixture.make(at: folder, productID: "com.example.p", version: version, files: ["Contents/data.txt": data])
            #expect(try CommandRunner.iapcontent(["pack", folder.path, "--output", dist.path]).status == 0)
            folders.append(folder)
        }
        let patch = try CommandRunner.iapcontent([
            "patch", folders[0].path, folders[1].path, "--old-manifest", dist.appendingPathComponent("com.example.p-1.0.manifest").path,
            "--new-manifest", dist.appendingPathComponent("com.example.p-2.0.manifest").path, "--output", dist.path,
        ])
        #expect(patch.status == 0, "\(patch.stderr)")
        let site = root.appendingPathComponent("site-patched")
        let catalog = try CommandRunner.iapcontent([
            "catalog", dist.path, "--output", site.path, "--catalog-version", "7", "--signing-key", fixture.keyFile.path, "--expires-in", "86400",
        ])
        #expect(catalog.status == 0, "\(catalog.stderr)")
        let offered = try #require(try Catalog.decoder.decode(Catalog.self, from: Data(contentsOf: site.appendingPathComponent("catalog.json"))).products.first?.patches?.first)
        let published = try fixture.publish(site, prefix: "q")
        #expect(published.status == 0, "\(published.stderr)")
        #expect(try fixture.fetch(fixture.server.publicURL("q/\(offered.path)")).body.count == Int(offered.length))
        let pruned = try CommandRunner.iapcontent(
            ["prune", "s3://\(fixture.server.bucket)/q", "--endpoint", fixture.server.endpoint, "--keep", "1", "--min-age", "0"],
            environment: fixture.server.credentials)
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(try fixture.fetch(fixture.server.publicURL("q/\(offered.path)")).status == 200, "the live catalog's patch was deleted")
        // A next catalog without the patch: once no kept catalog names it, prune deletes it.
        try FileManager.default.removeItem(at: dist.appendingPathComponent("com.example.p-1.0-to-2.0.patch"))
        let next = root.appendingPathComponent("site-unpatched")
        #expect(try CommandRunner.iapcontent([
            "catalog", dist.path, "--output", next.path, "--catalog-version", "8", "--signing-key", fixture.keyFile.path, "--expires-in", "86400",
        ]).status == 0)
        #expect(try fixture.publish(next, prefix: "q").status == 0)
        let again = try CommandRunner.iapcontent(
            ["prune", "s3://\(fixture.server.bucket)/q", "--endpoint", fixture.server.endpoint, "--keep", "1", "--min-age", "0"],
            environment: fixture.server.credentials)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try fixture.fetch(fixture.server.publicURL("q/\(offered.path)")).status == 404, "a patch no kept catalog names was left")
    }
}
