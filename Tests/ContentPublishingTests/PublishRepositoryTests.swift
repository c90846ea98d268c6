import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// `iapcontent publish` of a TUF repository folder to each real S3 server, read back by the CLI with only the
/// shipped root: the first publish, a new version sending only what changed, a rerun sending nothing, and a folder
/// behind the bucket refused.
@Suite("Publish a TUF repository to S3-compatible storage", .serialized)
struct PublishRepositoryTests {
    /// `repo init`, then `repo add` of a signed catalog folder, in `repo` under the fixture's folder.
    static func repository(_ fixture: PublishFixture) throws -> (repo: URL, online: URL) {
        let repo = fixture.root.url.appendingPathComponent("repo")
        let root = fixture.root.url.appendingPathComponent("root.key"), online = fixture.root.url.appendingPathComponent("online.key")
        for key in [root, online] { #expect(try CommandRunner.iapcontent(["keygen", "--output", key.path]).status == 0) }
        let initialized = try CommandRunner.iapcontent(
            ["repo", "init", repo.path, "--root-key", root.path, "--online-key", online.path, "--bins-bit-length", "4"])
        try #require(initialized.status == 0, "\(initialized.stderr)")
        return (repo, online)
    }

    @Test(arguments: PublishBackend.available)
    func aRepositoryPublishesWhatChangedAndTheClientInstallsFromTheBucket(_ backend: PublishBackend) throws {
        let fixture = try PublishFixture(backend)
        let (repo, online) = try Self.repository(fixture)
        let v1 = try fixture.site("v1", catalogVersion: 1, products: [
            .init(id: "com.example.a", size: 40_000, seed: 1), .init(id: "com.example.b", size: 30_000, seed: 2),
        ])
        #expect(try CommandRunner.iapcontent(["repo", "add", repo.path, v1.path, "--online-key", online.path]).status == 0)
        let first = try fixture.publish(repo, prefix: "repo")
        try #require(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("switched       metadata/timestamp.json to version 2 (first publish)"), "\(first.stdout)")

        let store = fixture.root.url.appendingPathComponent("client")
        let base = fixture.server.publicURL("repo/")
        let rootFile = repo.appendingPathComponent("metadata/1.root.json").path
        let install = try CommandRunner.iapcontent(
            ["download", "com.example.a", "--catalog", base, "--trusted-root", rootFile, "--store", store.path])
        #expect(install.status == 0, "\(install.stderr)")
        #expect(try Store(root: store).installedVersion(forProductID: "com.example.a")?.description == "1.0")

        // One new version of one product: its archive and manifest, its bins, the snapshot, tree nodes, the timestamp.
        let v2 = try fixture.site("v2", catalogVersion: 2, products: [.init(id: "com.example.a", version: "2.0", size: 40_000, seed: 3)])
        #expect(try CommandRunner.iapcontent(["repo", "add", repo.path, v2.path, "--online-key", online.path]).status == 0)
        let second = try fixture.publish(repo, prefix: "repo")
        try #require(second.status == 0, "\(second.stderr)")
        let sent = second.stdout.split(separator: "\n").filter { $0.hasPrefix("sent") }.map { String($0) }
        let metadata = sent.filter { $0.contains("metadata/") }
        let targets = sent.filter { $0.contains("targets/") }
        #expect(targets.count == 2, "\(sent)")
        #expect(metadata.count <= 4, "\(sent)")  // the product's bin, the snapshot, ≤ 2 tree nodes; and the timestamp's switch
        #expect(second.stdout.contains("0 already there"), "\(second.stdout)")
        #expect(second.stdout.contains("to version 3 (was 2)"), "\(second.stdout)")
        let update = try CommandRunner.iapcontent(
            ["download", "com.example.a", "--catalog", base, "--trusted-root", rootFile, "--store", store.path])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(try Store(root: store).installedVersion(forProductID: "com.example.a")?.description == "2.0")

        let rerun = try fixture.publish(repo, prefix: "repo")
        #expect(rerun.status == 0 && rerun.stdout.contains("0 objects sent"), "\(rerun.stdout)")
        #expect(rerun.stdout.contains("already live   metadata/timestamp.json at version 3"))
    }

    /// A folder that is behind the bucket (another publisher went further) is refused before any write.
    @Test(arguments: PublishBackend.available)
    func aFolderBehindTheBucketIsRefused(_ backend: PublishBackend) throws {
        let fixture = try PublishFixture(backend)
        let (repo, online) = try Self.repository(fixture)
        let v1 = try fixture.site("v1", catalogVersion: 1, products: [.init(id: "com.example.a", size: 20_000, seed: 1)])
        #expect(try CommandRunner.iapcontent(["repo", "add", repo.path, v1.path, "--online-key", online.path]).status == 0)
        let behind = fixture.root.url.appendingPathComponent("repo-behind")
        try FileManager.default.copyItem(at: repo, to: behind)
        let v2 = try fixture.site("v2", catalogVersion: 2, products: [.init(id: "com.example.a", version: "2.0", size: 20_000, seed: 2)])
        #expect(try CommandRunner.iapcontent(["repo", "add", repo.path, v2.path, "--online-key", online.path]).status == 0)
        #expect(try fixture.publish(repo, prefix: "r").status == 0)
        let refused = try fixture.publish(behind, prefix: "r")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("another publisher published after it"), "\(refused.stderr)")
    }
}
