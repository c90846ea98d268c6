import Foundation
import Testing
import TestSupport

/// `download` and `restore` share one set of transfer options, and both refuse values that would make a
/// run hang or never retry — before any network or store work (exit 2, the option named).
@Suite struct TransferOptionsTests {
    @Test("bad transfer options are usage errors for download and restore", arguments: [
        (["--stall-timeout", "0"], "--stall-timeout"),
        (["--max-attempts", "0"], "--max-attempts"),
        (["--retry-delay", "-1"], "--retry-delay"),
        (["--concurrency", "0"], "--concurrency"),
        (["--connections", "0"], "--connections"),
        (["--connections", "9", "--max-connections", "4"], "--connections"),
        (["--header", "Range: bytes=0-"], "--header"),
        (["--header", "Authorization Bearer s3cret"], "--header"),
        (["--key", "client.key"], "--key"),
    ])
    func badValuesAreRefused(_ options: [String], _ named: String) throws {
        let directory = try TemporaryDirectory("transfer-options")
        let store = directory.appending("store")
        for command in [["download", "com.example.x"], ["restore"]] {
            let result = try CommandRunner.iapcontent(
                command + ["--catalog", "http://127.0.0.1:9/catalog.json", "--store", store.path] + options)
            #expect(result.status == 2, "\(command) \(options): \(result.stderr)")
            #expect(result.stderr.contains(named), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: store.path))  // nothing was created
    }
}
