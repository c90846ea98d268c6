import ContentDownloads
import Foundation
import Testing
import TestSupport

/// Under `--json`, a command that fails says so in one JSON object on stderr with a code a script branches on,
/// never in a sentence only a person can read.
@Suite("CLI: command-level errors under --json")
struct CLIJSONErrorTests {
    /// The one JSON error object in `output` (stdout and stderr together), or `nil`.
    static func errorObject(_ output: String) -> [String: String]? {
        for line in output.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let error = object["error"] as? [String: String]
            else { continue }
            return error
        }
        return nil
    }

    @Test("a usage error: code usage, exit status 2")
    func usage() async throws {
        let run = try await iapcontentOffPool(["download", "com.example.x", "--store", "/tmp/none", "--json"])
        #expect(run.status == 2, "\(run.output)")
        let error = try #require(Self.errorObject(run.output), "\(run.output)")
        #expect(error["code"] == "usage" && error["message"]?.contains("--catalog") == true, "\(error)")
    }

    @Test("a product that is not installed: code notInstalled")
    func notInstalled() async throws {
        let fixture = try QueueFixture()
        let run = try await iapcontentOffPool(["verify", "com.example.none", "--store", fixture.store.root.path, "--json"])
        #expect(run.status == 1, "\(run.output)")
        let error = try #require(Self.errorObject(run.output), "\(run.output)")
        #expect(error["code"] == "notInstalled", "\(error)")
        #expect(!run.output.contains("iapcontent: com.example.none"), "the sentence form was printed too: \(run.output)")
    }

    @Test("a library error keeps its code: a change that must fetch without a catalog is catalog")
    func libraryCode() async throws {
        let fixture = try QueueFixture()
        let store = try await VoicedProduct.installGerman(try VoicedProduct(fixture), fixture)
        let run = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--select", "language=fr", "--store", store.path, "--json"])
        #expect(run.status == 1, "\(run.output)")
        let error = try #require(Self.errorObject(run.output), "\(run.output)")
        #expect(error["code"] == "catalog" && error["message"]?.contains("--catalog") == true, "\(error)")
    }

    @Test("pack refusals have codes of their own: essentialPack, unknownPack")
    func packCodes() async throws {
        let fixture = try QueueFixture()
        let store = try await VoicedProduct.installGerman(try VoicedProduct(fixture), fixture)
        let core = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--remove", "core", "--store", store.path, "--json"])
        #expect(core.status == 1 && Self.errorObject(core.output)?["code"] == "essentialPack", "\(core.output)")
        let unknown = try await iapcontentOffPool(["packs", VoicedProduct.productID, "--remove", "nosuch", "--store", store.path, "--json"])
        #expect(unknown.status == 1 && Self.errorObject(unknown.output)?["code"] == "unknownPack", "\(unknown.output)")
    }

    @Test("a download that fails says its own code, as the daemon's download.error does: httpStatus")
    func downloadFailureCode() async throws {
        let fixture = try QueueFixture()
        try fixture.publish([try fixture.source("com.example.gone", version: "1.0")])
        let archives = fixture.nginx.root.appendingPathComponent("archives")
        for archive in try FileManager.default.contentsOfDirectory(atPath: archives.path) {
            try FileManager.default.removeItem(at: archives.appendingPathComponent(archive))  // 404 from now on
        }
        let run = try await iapcontentOffPool([
            "download", "com.example.gone", "--catalog", fixture.catalogURL, "--store", fixture.store.root.path, "--json",
        ])
        #expect(run.status == 1, "\(run.output)")
        let error = try #require(Self.errorObject(run.output), "\(run.output)")
        #expect(error["code"] == "httpStatus" && error["message"]?.contains("404") == true, "\(error)")
    }

    @Test("without --json the same failures are sentences")
    func sentences() async throws {
        let run = try await iapcontentOffPool(["download", "com.example.x", "--store", "/tmp/none"])
        #expect(run.status == 2 && Self.errorObject(run.output) == nil, "\(run.output)")
    }
}
