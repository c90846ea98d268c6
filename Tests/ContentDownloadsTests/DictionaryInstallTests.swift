import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A client installing an archive packed with a dictionary (`pack --dictionary`), through nginx: the dictionary is
/// fetched with one range request and checked against the signed manifest before any frame is decoded; an install,
/// an update between two dictionaries, a resume after kill -9 and a whole-archive install all end byte-identical; a
/// mirror serving another dictionary fails the download, naming it, with nothing installed.
@Suite("Client: archives packed with a dictionary", .serialized)
struct DictionaryInstallTests {
    static let productID = "com.example.dictionary"

    /// 400 small JSON-like files sharing blocks (`PackageFixture.sharedBlockRecords(count:seed:)`), version `version`,
    /// with two of its files (far apart) different from the seed-1 tree when `changed`.
    static func source(_ fixture: QueueFixture, version: String, changed: Bool = false) throws -> URL {
        var files = PackageFixture.sharedBlockRecords(count: 400)
        if changed {
            for (index, path) in files.keys.sorted().enumerated() where index % 200 == 3 {
                files[path]!.append(contentsOf: Data(" changed in \(version)".utf8))
            }
        }
        let folder = fixture.root.appendingPathComponent("sources/\(version)", isDirectory: true)
        try PackageFixture.make(at: folder, productID: productID, version: version, files: files)
        return folder
    }

    /// Packs `folders` with an 8 KiB dictionary (16 KiB file groups, so there are many frames) and publishes the catalog.
    static func publish(_ folders: [URL], on fixture: QueueFixture, version catalogVersion: UInt64) throws {
        let packed = fixture.root.appendingPathComponent("packed", isDirectory: true)
        for folder in folders {
            var packer = Packer()
            packer.dictionaryBytes = 8 << 10
            packer.fileGroups = try FileGroupBudget(frameBytes: 16 << 10)
            let result = try packer.pack(folder: folder, outputDirectory: packed)
            #expect(result.manifest.dictionary != nil, "the fixture trains a dictionary")
        }
        _ = try CatalogBuilder(inputDirectory: packed, outputDirectory: fixture.nginx.root, catalogVersion: catalogVersion).build()
    }

    /// Version 1.0 (``source(_:version:changed:)``), packed and published as catalog version 1; its folder.
    static func publishFirstVersion(on fixture: QueueFixture) throws -> URL {
        let v1 = try source(fixture, version: "1.0")
        try publish([v1], on: fixture, version: 1)
        return v1
    }

    /// The store's installed folder of the product is byte-identical to `source`.
    static func expectInstalled(_ source: URL, in fixture: QueueFixture, _ comment: Comment? = nil) throws {
        let installed = try #require(try Store(root: fixture.store.root).contentURL(forProductID: productID))
        #expect(try diffTrees(source, installed).status == 0, comment)
    }

    func download(_ fixture: QueueFixture) throws -> (status: Int32, output: String) {
        try iapcontent(["download", Self.productID, "--catalog", fixture.catalogURL, "--store", fixture.store.root.path, "--retry-delay", "0.1"], timeout: 120)
    }

    /// The archive file nginx serves for the catalog's product.
    func servedArchive(_ fixture: QueueFixture) throws -> URL {
        let archives = fixture.nginx.root.appendingPathComponent("archives")
        let names = try FileManager.default.contentsOfDirectory(atPath: archives.path).filter { $0.hasSuffix(".tar.zst") }
        let product = try #require(try fixture.catalog().catalog.products.first { $0.productID == Self.productID })
        let name = try #require(names.first { $0.hasPrefix(product.sha256) }, "\(names) \(product.sha256)")
        return archives.appendingPathComponent(name)
    }

    @Test("install, then update to a version with another dictionary: each byte-identical; the dictionary is one range request of its bytes")
    func installAndUpdate() throws {
        let fixture = try QueueFixture()
        let v1 = try Self.publishFirstVersion(on: fixture)
        let first = try download(fixture)
        #expect(first.status == 0, "\(first.output)")
        try Self.expectInstalled(v1, in: fixture)
        let record = try #require(try PackageManifest.decode(contentsOfFile: fixture.store.installedManifestFile(productID: Self.productID).path).dictionary)
        let ranges = fixture.nginx.requests().filter { $0.request.contains("/archives/") }.map(\.range)
        #expect(ranges.first == "bytes=0-\(record.length - 1)", "the first archive request fetches the dictionary: \(ranges)")
        #expect(!FileManager.default.fileExists(atPath: fixture.store.dictionaryFile(productID: Self.productID, version: "1.0").path),
                "the kept dictionary goes once the version is installed")

        let v2 = try Self.source(fixture, version: "2.0", changed: true)
        try Self.publish([v2], on: fixture, version: 2)
        let before = fixture.nginx.requests().count
        let update = try download(fixture)
        #expect(update.status == 0, "\(update.output)")
        try Self.expectInstalled(v2, in: fixture)
        let archiveBytes = fixture.nginx.requests().dropFirst(before).filter { $0.request.contains("/archives/") }.reduce(0) { $0 + $1.bodyBytesSent }
        let size = try FileManager.default.attributesOfItem(atPath: servedArchive(fixture).path)[.size] as! Int
        #expect(archiveBytes < size / 2, "an update of 2 files fetched \(archiveBytes) of the archive's \(size) bytes")
    }

    @Test("a mirror serving another dictionary: the download fails naming the dictionary and its SHA-256, nothing is installed; the honest archive then installs")
    func anotherDictionaryIsRefused() throws {
        let fixture = try QueueFixture()
        let v1 = try Self.publishFirstVersion(on: fixture)
        let archive = try servedArchive(fixture)
        let honest = try Data(contentsOf: archive)
        var tampered = honest
        tampered[100] ^= 0x20  // inside the stored dictionary
        try tampered.write(to: archive)
        let refused = try download(fixture)
        #expect(refused.status != 0)
        #expect(refused.output.contains("dictionary") && refused.output.contains("SHA-256"), "\(refused.output)")
        #expect(try Store(root: fixture.store.root).contentURL(forProductID: Self.productID) == nil)
        #expect(fixture.stagingLeftovers().isEmpty)

        try honest.write(to: archive)
        let retried = try download(fixture)
        #expect(retried.status == 0, "\(retried.output)")
        try Self.expectInstalled(v1, in: fixture)
    }

    @Test("an update whose dictionary another archive's bytes replace fails naming it; the installed version stays byte-identical")
    func updateWithAnotherDictionaryLeavesTheInstalledVersion() throws {
        let fixture = try QueueFixture()
        let v1 = try Self.publishFirstVersion(on: fixture)
        #expect(try download(fixture).status == 0)
        let v2 = try Self.source(fixture, version: "2.0", changed: true)
        try Self.publish([v2], on: fixture, version: 2)
        let archive = try servedArchive(fixture)
        var tampered = try Data(contentsOf: archive)
        tampered[200] ^= 0x01
        try tampered.write(to: archive)
        let update = try download(fixture)
        #expect(update.status != 0)
        #expect(update.output.contains("dictionary") && update.output.contains("SHA-256"), "\(update.output)")
        try Self.expectInstalled(v1, in: fixture, "the installed 1.0 is untouched")
        #expect(fixture.stagingLeftovers().isEmpty)
    }

    /// A dictionary fetch of `archive`'s stored frame from `server` alone (a catalog on disk pins its URL).
    func fetchDictionary(of archive: URL, record: ArchiveDictionary, from server: FaultServer, fixture: QueueFixture) throws -> Result<FrameDictionary, InstallError> {
        let folder = fixture.root.appendingPathComponent("pinned", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var catalog = try fixture.catalog().catalog
        catalog.products[0].url = server.url()
        let file = folder.appendingPathComponent("catalog.json")
        try catalog.encoded().write(to: file)
        let source = try CatalogSource.load(file.path)
        let fetch = DictionaryFetch(store: fixture.store, catalog: source, transport: TransferSettings())
        return Result { () throws(InstallError) in try fetch.load(record, for: source.catalog.products[0]) }
    }

    @Test("a mirror that answers 503 once is asked again after a pause; one that serves another byte is refused at once, never asked again")
    func transientAndLyingMirrors() throws {
        let fixture = try QueueFixture()
        try Self.publish([try Self.source(fixture, version: "1.0")], on: fixture, version: 1)
        let archive = try servedArchive(fixture)
        let bytes = try [UInt8](Data(contentsOf: archive))
        let manifests = fixture.nginx.root.appendingPathComponent("manifests")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: manifests.path).first)
        let record = try #require(try PackageManifest.decode(contentsOfFile: manifests.appendingPathComponent(name).path).dictionary)

        let busy = try FaultServer(body: bytes, faults: [.status(503, retryAfter: nil)])
        defer { busy.stop() }
        let fetched = try fetchDictionary(of: archive, record: record, from: busy, fixture: fixture).get()
        #expect(fetched.record == record)
        #expect(busy.records.map(\.status) == [503, 206], "\(busy.records.map(\.status))")
        #expect(busy.records.last?.range == "bytes=0-\(record.length - 1)")

        try? FileManager.default.removeItem(at: fixture.store.dictionaryFile(productID: Self.productID, version: "1.0"))
        let lying = try FaultServer(body: bytes, faults: [.wrongByte(at: 50)])
        defer { lying.stop() }
        guard case .failure(let error) = try fetchDictionary(of: archive, record: record, from: lying, fixture: fixture) else {
            Issue.record("a dictionary with another byte was taken")
            return
        }
        #expect("\(error)".contains("SHA-256"), "\(error)")
        #expect(lying.records.count == 1, "a mirror that serves other bytes is not asked again: \(lying.records.count) requests")
    }

    @Test("a kept dictionary that is a FIFO, a folder or longer than the record is refused at once, never waited on or read whole")
    func hostileKeptCopies() throws {
        let directory = try TemporaryDirectory("kept-dictionary")
        let record = ArchiveDictionary(length: 1000, size: 4096, id: 7, sha256: String(repeating: "a", count: 64))
        let fifo = directory.appending("fifo.dictionary").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let folder = directory.appending("folder.dictionary")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let long = directory.appending("long.dictionary")
        try Data(count: 50 << 20).write(to: long)
        for path in [fifo, folder.path, long.path, directory.appending("missing.dictionary").path] {
            #expect(throws: InstallError.self, "\(path)") { try DictionaryFetch.kept(at: path, record: record) }
        }
    }

    @Test("killed with SIGKILL after chunks were placed, the rerun reads the kept dictionary back and ends byte-identical")
    func resumesAfterKill() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 96k;")
        let v1 = try Self.publishFirstVersion(on: fixture)
        let arguments = ["download", Self.productID, "--catalog", fixture.catalogURL, "--store", fixture.store.root.path, "--retry-delay", "0.1"]
        let log = fixture.store.updateTreeDirectory(productID: Self.productID, version: "1.0").path + ".placed"
        let (child, output) = try QueueCrashTests.spawn(arguments)
        defer { try? FileManager.default.removeItem(at: output) }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, child.isRunning, ((try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0) < 24 {
            usleep(20_000)
        }
        kill(child.processIdentifier, SIGKILL)
        try await offPool { QueueCrashTests.wait(child, timeout: 60) }
        #expect(child.terminationReason == .uncaughtSignal, "the run ended before its kill")
        #expect(FileManager.default.fileExists(atPath: fixture.store.dictionaryFile(productID: Self.productID, version: "1.0").path))
        let rerun = try await offPool { try download(fixture) }
        #expect(rerun.status == 0, "\(rerun.output)")
        try Self.expectInstalled(v1, in: fixture)
    }

    @Test("a server that ignores ranges (nginx max_ranges 0): the dictionary is read from the start of the whole answer, then the archive installs byte-identical")
    func serverWithoutRanges() throws {
        let fixture = try QueueFixture(locationConfig: "max_ranges 0;")
        let v1 = try Self.publishFirstVersion(on: fixture)
        let result = try download(fixture)
        #expect(result.status == 0, "\(result.output)")
        try Self.expectInstalled(v1, in: fixture)
        #expect(fixture.nginx.requests().filter { $0.request.contains("/archives/") }.allSatisfy { $0.status == 200 })
    }

    @Test("no manifest on the mirror: the whole archive is fetched, checked against the catalog and installed with the dictionary it stores")
    func wholeArchive() throws {
        let fixture = try QueueFixture()
        let v1 = try Self.publishFirstVersion(on: fixture)
        try FileManager.default.removeItem(at: fixture.nginx.root.appendingPathComponent("manifests"))
        let result = try download(fixture)
        #expect(result.status == 0, "\(result.output)")
        try Self.expectInstalled(v1, in: fixture)
        #expect(!fixture.nginx.requests().contains { $0.range.hasPrefix("bytes=0-") && $0.request.contains("/archives/") && $0.status == 206 && $0.bodyBytesSent < 100_000 },
                "no dictionary range request without a manifest")
    }
}
