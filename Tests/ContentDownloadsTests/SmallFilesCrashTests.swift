import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A chunk install of many small files creates each one when its first part is placed, between checkpoints: killed
/// with SIGKILL again and again while those files are being created (no checkpoint made yet, only this boot's log of
/// placed chunks), every rerun continues and the last leaves the tree byte-identical, every file at its length and
/// mode, `staging/` empty and the transaction finished once.
@Suite("Content queue: kill -9 while small files are created", .serialized)
struct SmallFilesCrashTests {
    static let productID = "com.example.smallfiles"

    /// 480 incompressible files of 700 B to 4 KiB in 24 folders (a few dozen chunks), an empty file and one of zeros.
    static func source(_ fixture: QueueFixture) throws -> URL {
        let folder = fixture.root.appendingPathComponent("sources/small", isDirectory: true)
        var files: [String: Data] = [
            "Contents/empty.txt": Data(),
            "Contents/zeros.bin": Data(count: 3000),
        ]
        for index in 0..<480 {
            let size = 700 + (index * 7919) % 3400
            files["Contents/d\(index % 24)/f\(index).bin"] = PackageFixture.bytes(count: size, seed: UInt64(index) + 1)
        }
        try PackageFixture.make(at: folder, productID: productID, version: "1.0", files: files)
        return folder
    }

    @Test func killedThreeTimesWhileFilesAreCreatedTheInstallEndsWhole() async throws {
        // 1.3 MB at 128 KiB/s: about ten seconds, long enough to kill the run three times as the log of placed chunks grows.
        let fixture = try QueueFixture(locationConfig: "limit_rate 128k;")
        let source = try Self.source(fixture)
        try fixture.publish([source], chunked: true)
        let arguments = ["download", Self.productID, "--catalog", fixture.catalogURL, "--store", fixture.store.root.path,
                         "--retry-delay", "0.1"]
        let log = fixture.store.updateTreeDirectory(productID: Self.productID, version: "1.0").path + ".placed"
        var killedAt: [Int] = []
        for records in [2, 5, 9] {
            let (child, output) = try QueueCrashTests.spawn(arguments)
            defer { try? FileManager.default.removeItem(at: output) }
            // Kill once the log (12 bytes a record) holds `records` more than when this run started.
            let start = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, child.isRunning {
                let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
                if size >= start + 12 * records { break }
                usleep(20_000)
            }
            kill(child.processIdentifier, SIGKILL)
            try await offPool { QueueCrashTests.wait(child, timeout: 60) }
            let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            #expect(child.terminationReason == .uncaughtSignal, "the run ended before its kill:\n\(printed)")
            killedAt.append(((try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0) / 12)
            // Nothing of a killed run is visible as installed.
            #expect(try Store(root: fixture.store.root).contentURL(forProductID: Self.productID) == nil)
        }
        #expect(killedAt.last ?? 0 > 0, "no chunk was placed before the kills: \(killedAt)")

        let rerun = try iapcontent(arguments, timeout: 120)
        #expect(rerun.status == 0, "rerun after kills with \(killedAt) chunks logged:\n\(rerun.output)")
        let installed = try #require(Store(root: fixture.store.root).contentURL(forProductID: Self.productID))
        #expect(try diffTrees(source, installed).status == 0)
        let manifest = try PackageManifest.decode(contentsOfFile: fixture.store.installedManifestFile(productID: Self.productID).path)
        for file in manifest.files where !file.path.hasSuffix("/") {
            var info = stat()
            #expect(stat(installed.path + "/" + file.path, &info) == 0, "\(file.path) exists")
            #expect(Int64(info.st_size) == file.size, "\(file.path): \(info.st_size) bytes, the manifest says \(file.size)")
            #expect(info.st_mode & 0o777 == 0o644, "\(file.path): mode \(String(info.st_mode & 0o777, radix: 8))")
        }
        #expect(fixture.stagingLeftovers().isEmpty, "staging leftovers: \(fixture.stagingLeftovers())")
        let overview = try StoreOverview(store: fixture.store)
        #expect(overview.transactions.isEmpty)
        #expect(overview.history.filter { $0.productID == Self.productID }.count == 1)
    }
}
