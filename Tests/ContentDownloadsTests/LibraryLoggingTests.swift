import ContentDownloads
import Foundation
import Testing
import TestSupport

/// The library says what it decides through swift-log: with `-vv` a download shows the transfer start, the
/// range decision and the install phases; without it, none of that reaches stderr.
@Suite struct LibraryLoggingTests {
    @Test func verboseShowsTransferRangeAndInstallLines() throws {
        let fixture = try QueueFixture()
        let levels = try fixture.source("com.example.logged", version: "1.0")
        try fixture.publish([levels])
        let store = fixture.root.appendingPathComponent("cli-store").path
        let verbose = try iapcontent(["download", "com.example.logged", "--catalog", fixture.catalogURL, "--store", store, "-vv"])
        #expect(verbose.status == 0, "\(verbose.output)")
        for expected in ["iapcontent.transfer", "start", "range decision", "from byte 0", "verified", "iapcontent.install", "installed"] {
            #expect(verbose.output.contains(expected), "missing '\(expected)' in:\n\(verbose.output)")
        }
        let quiet = try iapcontent([
            "download", "com.example.logged", "--catalog", fixture.catalogURL,
            "--store", fixture.root.appendingPathComponent("quiet-store").path,
        ])
        #expect(quiet.status == 0, "\(quiet.output)")
        #expect(!quiet.output.contains("iapcontent.transfer"))
        #expect(!quiet.output.contains("iapcontent.install"))
    }

    /// At swift-log's default level (info: the CLI without `-v`, an embedder that never bootstrapped logging), a
    /// chunk plan's routine decisions print nothing.
    @Test func aDefaultRunPrintsNoDecisions() throws {
        let fixture = try QueueFixture()
        try fixture.publish([try fixture.source("com.example.quiet", version: "1.0")], chunked: true)
        let run = try iapcontent([
            "download", "com.example.quiet", "--catalog", fixture.catalogURL,
            "--store", fixture.root.appendingPathComponent("store-quiet").path,
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.output.contains("iapcontent.transfer") && !run.output.contains("iapcontent.queue"),
                "a log line reached the output: \(run.output)")
    }
}
