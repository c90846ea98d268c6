import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// The queue's commands end to end in child processes: download (--no-finish), status, content,
/// delete, restore, update available.
@Suite("Content queue: CLI", .serialized)
struct QueueCLITests {
    @Test("download --no-finish, status, content, delete, restore, update available")
    func commands() async throws {
        let fixture = try QueueFixture()
        let v1 = try fixture.source("com.example.cli", version: "1.0")
        try fixture.publish([v1])
        let store = fixture.store.root.path
        let id = "com.example.cli"

        let download = try iapcontent(["download", id, "--catalog", fixture.catalogURL, "--store", store, "--no-finish"])
        #expect(download.status == 0, "\(download.output)")
        let installed = fixture.store.root.appendingPathComponent("content/\(id)").path
        #expect(download.output.contains("\(id): \(installed)"))
        #expect(try diffTrees(v1, URL(fileURLWithPath: installed)).status == 0)
        var status = try iapcontent(["status", "--store", store])
        #expect(status.output.contains("transaction cli-\(id)-1.0: \(id) purchase, purchased (unfinished)"), "\(status.output)")

        // A rerun reattaches to the same transaction, finds the content installed and finishes it.
        let rerun = try iapcontent(["download", id, "--catalog", fixture.catalogURL, "--store", store])
        #expect(rerun.status == 0, "\(rerun.output)")
        status = try iapcontent(["status", "--store", store])
        #expect(status.output.contains("transaction cli-\(id)-1.0: \(id) purchase 1.0, finished"), "\(status.output)")
        #expect(!status.output.contains("unfinished"))

        let content = try iapcontent(["content", id, "--store", store])
        #expect(content.status == 0)
        #expect(content.output.trimmingCharacters(in: .whitespacesAndNewlines) == installed)
        #expect(try iapcontent(["delete", id, "--store", store]).status == 0)
        let missing = try iapcontent(["content", id, "--store", store])
        #expect(missing.status == 1)
        #expect(missing.output.contains("not installed"))

        let restore = try iapcontent(["restore", "--catalog", fixture.catalogURL, "--store", store])
        #expect(restore.status == 0, "\(restore.output)")
        #expect(restore.output.contains("\(id): \(installed)"))
        #expect(try diffTrees(v1, URL(fileURLWithPath: installed)).status == 0)
        let nothing = try iapcontent(["restore", "--catalog", fixture.catalogURL, "--store", store])
        #expect(nothing.output.contains("Nothing to restore"))

        let v2 = try fixture.source(id, version: "1.1")
        try fixture.publish([v2])
        status = try iapcontent(["status", "--store", store, "--catalog", fixture.catalogURL])
        #expect(status.output.contains("installed \(id) 1.0, update available: 1.1"), "\(status.output)")
    }
}

extension QueueCLITests {
    @Test("an update returns with the old version and the archive in the trash; the detached empty-trash deletes them")
    func updateEmptiesTrashAfterReturning() async throws {
        let fixture = try QueueFixture()
        let id = "com.example.trash"
        try fixture.publish([try fixture.source(id, version: "1.0")])
        let store = fixture.store.root.path
        #expect(try iapcontent(["download", id, "--catalog", fixture.catalogURL, "--store", store]).status == 0)
        let v2 = try fixture.source(id, version: "1.1")
        try fixture.publish([v2])
        let update = try iapcontent(["download", id, "--catalog", fixture.catalogURL, "--store", store])
        #expect(update.status == 0, "\(update.output)")
        let installed = fixture.store.root.appendingPathComponent("content/\(id)")
        #expect(try diffTrees(v2, installed).status == 0)
        // Bounded wait for the detached `empty-trash` (it deletes a few KiB here).
        let trash = fixture.store.root.appendingPathComponent("trash").path
        var left = (try? FileManager.default.contentsOfDirectory(atPath: trash)) ?? []
        for _ in 0..<100 where !left.isEmpty {
            try await Task.sleep(for: .milliseconds(100))
            left = (try? FileManager.default.contentsOfDirectory(atPath: trash)) ?? []
        }
        #expect(left.isEmpty, "trash still holds \(left) 10 s after download returned")
        let transfers = fixture.store.root.appendingPathComponent("transfers").path
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: transfers)) ?? []).isEmpty)
        #expect(try diffTrees(v2, installed).status == 0)
    }

    @Test("empty-trash by hand: deletes what the trash holds; a store that does not exist stays absent")
    func emptyTrashCommand() throws {
        let fixture = try QueueFixture()
        let id = "com.example.trash"
        try fixture.publish([try fixture.source(id, version: "1.0")])
        #expect(try iapcontent(["download", id, "--catalog", fixture.catalogURL, "--store", fixture.store.root.path]).status == 0)
        let trash = fixture.store.root.appendingPathComponent("trash", isDirectory: true)
        try FileManager.default.createDirectory(at: trash.appendingPathComponent("old-1/Contents"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: trash.appendingPathComponent("old-1/Contents/file"))
        try Data("archive".utf8).write(to: trash.appendingPathComponent("p-1.0.tar.zst-1234"))
        let run = try iapcontent(["empty-trash", "--store", fixture.store.root.path])
        #expect(run.status == 0, "\(run.output)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: trash.path)) ?? ["?"]).isEmpty)
        let gone = fixture.store.root.appendingPathComponent("no-such-store")
        #expect(try iapcontent(["empty-trash", "--store", gone.path]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: gone.path))
    }

    @Test("Ctrl-C pauses and exits 3 with the transaction unfinished; the rerun installs and finishes it")
    func interruptThenRerun() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 512k;")
        let id = "com.example.interrupt"
        let source = try fixture.source(id, version: "1.0", size: 3 << 20)
        try fixture.publish([source])
        let arguments = ["download", id, "--catalog", fixture.catalogURL, "--store", fixture.store.root.path]
        let child = try Child(arguments)
        let partial = fixture.store.partialFile(productID: id).path
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) < 256 << 10 {
            usleep(50_000)
        }
        kill(child.process.processIdentifier, SIGINT)
        #expect(child.wait(timeout: 15) == 3, "\(child.text)")
        #expect(child.text.contains("Run the same command again to resume"))
        #expect(try StoreOverview(store: fixture.store).transactions.map(\.id) == ["cli-\(id)-1.0"])

        let rerun = try iapcontent(arguments, timeout: 60)
        #expect(rerun.status == 0, "\(rerun.output)")
        let url = try #require(try Store(root: fixture.store.root).contentURL(forProductID: id))
        #expect(try diffTrees(source, url).status == 0)
        #expect(try StoreOverview(store: fixture.store).transactions.isEmpty)
        // The rerun resumed: the second request asked for a range.
        let requests = fixture.nginx.requests().filter { $0.request.contains(".tar.zst") }
        #expect(requests.count == 2)
        #expect(requests.last?.range.hasPrefix("bytes=") == true)
    }
}

@Suite("Content queue: signed catalogs", .serialized)
struct QueueSignedCatalogTests {
    @Test("--public-key: a signed catalog installs; a wrong key, a missing signature and a rollback are refused")
    func signedCatalog() async throws {
        let fixture = try QueueFixture()
        let key = SigningKey.generate()
        let id = "com.example.signed"
        try fixture.publish([try fixture.source(id, version: "1.0")], signingKey: key, catalogVersion: 10)
        let store = fixture.store.root.path
        func download(_ publicKey: String) throws -> (status: Int32, output: String) {
            try iapcontent(["download", id, "--catalog", fixture.catalogURL, "--store", store, "--public-key", publicKey])
        }

        let wrong = try download(SigningKey.generate().publicKeyBase64)
        #expect(wrong.status == 1)
        #expect(wrong.output.contains("refusing the catalog") && wrong.output.contains("does not pin"), "\(wrong.output)")
        #expect(try Store(root: fixture.store.root).contentURL(forProductID: id) == nil)

        let good = try download(key.publicKeyBase64)
        #expect(good.status == 0, "\(good.output)")

        // An older (validly signed) catalog is a rollback once version 10 was accepted (a server
        // replaying an old catalog; the builder itself refuses to go back, so start from scratch).
        try FileManager.default.removeItem(at: fixture.nginx.root.appendingPathComponent("catalog.json"))
        try fixture.publish([try fixture.source(id, version: "1.0")], signingKey: key, catalogVersion: 9)
        let rollback = try download(key.publicKeyBase64)
        #expect(rollback.status == 1)
        #expect(rollback.output.contains("version 9 is older than version 10"), "\(rollback.output)")

        // Unsigned: refused when a key is pinned.
        try fixture.publish([try fixture.source(id, version: "1.0")], catalogVersion: 11)
        try? FileManager.default.removeItem(at: fixture.nginx.root.appendingPathComponent("catalog.json.sig"))
        let unsigned = try download(key.publicKeyBase64)
        #expect(unsigned.status == 1)
        #expect(unsigned.output.contains("catalog.json.sig is missing"), "\(unsigned.output)")
    }
}
