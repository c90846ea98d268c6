import Foundation
import Testing
import TestSupport

/// `iapcontent repo …` through the built binary: keygen → pack → catalog → repo init / add / refresh / rotate-root /
/// key, each printing what it wrote, and a wrong key refused with a message naming the role.
@Suite("iapcontent repo")
struct RepoCommandTests {
    static func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> CommandRunner.Result {
        try CommandRunner.run(CommandRunner.builtExecutable().path, arguments, currentDirectory: directory.url)
    }

    @Test func initAddRefreshRotateAndRevoke() throws {
        let directory = try TemporaryDirectory("repo-cli")
        for key in ["r1", "r2", "r3", "online", "online2", "n1"] {
            #expect(try Self.run(["keygen", "--output", "\(key).key"], in: directory).status == 0)
        }
        let package = try PackageFixture.make(
            at: directory.appending("pkg"), productID: "com.example.cli", version: "1.0",
            files: ["Contents/a.bin": PackageFixture.bytes(count: 200_000, seed: 5)])
        #expect(try Self.run(["pack", package.path, "--output", "dist"], in: directory).status == 0)
        #expect(try Self.run(["catalog", "dist", "--output", "site"], in: directory).status == 0)

        let initialized = try Self.run(
            ["repo", "init", "repo", "--root-key", "r1.key", "--root-key", "r2.key", "--root-key", "r3.key", "--root-threshold", "2",
             "--online-key", "online.key", "--bins-bit-length", "3"], in: directory)
        #expect(initialized.status == 0, "\(initialized.stderr)")
        #expect(initialized.stdout.contains("ship repo/metadata/1.root.json"))

        let added = try Self.run(["repo", "add", "repo", "site", "--online-key", "online.key"], in: directory)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdoutLines.first == "site: published com.example.cli")
        #expect(added.stdoutLines.filter { !$0.contains("snapshot-tree/") }.suffix(2) == ["wrote metadata/2.snapshot.json", "wrote metadata/timestamp.json"])
        #expect(try Self.run(["repo", "add", "repo", "site", "--online-key", "online.key"], in: directory).stdout == "site: nothing new\n")

        // A folder of packed archives works too: a new version straight from `pack`.
        let next = try PackageFixture.make(
            at: directory.appending("pkg2"), productID: "com.example.cli", version: "2.0",
            files: ["Contents/a.bin": PackageFixture.bytes(count: 200_000, seed: 6)])
        #expect(try Self.run(["pack", next.path, "--output", "dist2"], in: directory).status == 0)
        let fromPack = try Self.run(["repo", "add", "repo", "dist2", "--online-key", "online.key"], in: directory)
        #expect(fromPack.status == 0 && fromPack.stdoutLines.first == "dist2: published com.example.cli", "\(fromPack.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appending("repo").path).sorted() == [".lock", "metadata", "targets"])

        let refreshed = try Self.run(["repo", "refresh", "repo", "--online-key", "online.key"], in: directory)
        #expect(refreshed.status == 0 && refreshed.stdout == "nothing to re-sign\n", "\(refreshed.stderr)")

        // The root keys cannot sign the timestamp: refused, naming the role.
        let wrong = try Self.run(["repo", "refresh", "repo", "--online-key", "r1.key", "--force"], in: directory)
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("of the keys of role bins"), "\(wrong.stderr)")

        let rotated = try Self.run(
            ["repo", "rotate-root", "repo", "--old-key", "r1.key", "--old-key", "r3.key", "--new-key", "n1.key"], in: directory)
        #expect(rotated.status == 0 && rotated.stdout == "wrote metadata/2.root.json\n", "\(rotated.stderr)")

        let added2 = try Self.run(
            ["repo", "key", "add", "timestamp", "repo", "--key", "online2.key", "--root-key", "n1.key", "--online-key", "online.key"],
            in: directory)
        #expect(added2.status == 0, "\(added2.stderr)")
        #expect(added2.stdoutLines.first == "wrote metadata/3.root.json")
        let revoked = try Self.run(
            ["repo", "key", "revoke", "timestamp", "repo", "--key", "online.key", "--root-key", "n1.key",
             "--online-key", "online.key", "--online-key", "online2.key"], in: directory)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdoutLines == ["wrote metadata/4.root.json", "wrote metadata/5.snapshot.json", "wrote metadata/timestamp.json"])
    }
}
