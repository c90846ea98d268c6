import Foundation
import Testing
import TestSupport

/// An origin behind a private certificate authority, over https and HTTP/2 (nginx `listen … ssl http2`, a server
/// certificate signed by an authority made with openssl for the test): `download --http2 --ca-file` installs from it,
/// and without the CA file the command fails at once with a message that says to pass `--ca-file`, whether the
/// catalog or only the archive's mirror is on that origin.
@Suite("Private CA origin", .serialized)
final class PrivateCATests {
    let certificates: TestCertificates
    let nginx: Nginx
    let work: TemporaryDirectory
    let content: URL

    init() throws {
        certificates = try TestCertificates()
        nginx = try Nginx(tls: certificates, http2: true, clientCertificates: false)
        work = try TemporaryDirectory("private-ca")
        content = try PackageFixture.make(
            at: work.url.appendingPathComponent("content"), productID: "com.example.privateca",
            files: ["Contents/data.bin": PackageFixture.bytes(count: 3 << 20, seed: 40)])
        let archives = work.url.appendingPathComponent("archives")
        let pack = try CommandRunner.iapcontent(["pack", content.path, "--output", archives.path])
        guard pack.status == 0 else { throw TestSupportError("pack failed: \(pack.stderr)") }
        for (site, mirror) in [(nginx.root, [String]()), (work.url.appendingPathComponent("local"), ["--mirror", nginx.baseURL])] {
            let catalog = try CommandRunner.iapcontent(["catalog", archives.path, "--output", site.path] + mirror)
            guard catalog.status == 0 else { throw TestSupportError("catalog failed: \(catalog.stderr)") }
        }
        // The local catalog only: its manifest and archive are on the https origin (its mirror) alone.
        for folder in ["archives", "manifests"] {
            try FileManager.default.removeItem(at: work.url.appendingPathComponent("local/\(folder)"))
        }
    }

    deinit {
        nginx.stop()
        certificates.remove()
    }

    func download(catalog: String, _ extra: [String]) async throws -> (status: Int32, output: String, store: URL) {
        let store = work.url.appendingPathComponent("store-\(UUID().uuidString)")
        let run = try await iapcontentOffPool(
            ["download", "com.example.privateca", "--catalog", catalog, "--store", store.path, "--http2"] + extra, timeout: 60)
        return (run.status, run.output, store)
    }

    @Test func installsWithTheCAFile() async throws {
        let run = try await download(catalog: nginx.baseURL + "/catalog.json", ["--ca-file", certificates.authority])
        #expect(run.status == 0, "\(run.output)")
        let installed = try CommandRunner.iapcontent(["content", "com.example.privateca", "--store", run.store.path])
        let folder = URL(fileURLWithPath: installed.stdoutLines.first ?? "/nonexistent")
        #expect(try diffTrees(content.appendingPathComponent("Contents"), folder.appendingPathComponent("Contents")).status == 0)
        let requests = nginx.requests()
        #expect(requests.count >= 2 && requests.allSatisfy { $0.request.hasSuffix("HTTP/2.0") }, "\(requests.map(\.request))")
    }

    @Test(arguments: ["catalog", "archive"])
    func withoutTheCAFileFailsAtOnceSayingWhatToPass(_ untrusted: String) async throws {
        let catalog = untrusted == "catalog"
            ? nginx.baseURL + "/catalog.json" : work.url.appendingPathComponent("local/catalog.json").path
        let run = try await download(catalog: catalog, [])
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("--ca-file PATH"), "\(run.output)")
        #expect(run.output.contains("certificate"), "\(run.output)")
        // "At once": no retry. A certificate no authority signed is a question of trust, not of the network, so the
        // archive's transfer gives up after its first attempt (the catalog's fetch is a single request anyway).
        // Counted rather than timed: on a loaded machine the process alone can take seconds to start.
        if untrusted == "archive" { #expect(run.output.contains("gave up after 1 attempt)"), "\(run.output)") }
        #expect(!run.output.contains("attempts)"), "\(run.output)")
    }
}
