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
