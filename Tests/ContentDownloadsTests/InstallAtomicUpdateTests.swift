import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite("Install: good installs, atomic updates, recovery, store")
struct InstallAtomicUpdateTests {
    @Test("a good install is byte-identical to the source folder, files 0644, directories 0755")
    func goodInstallMatchesSource() throws {
        let fixture = try InstallFixture()
        // A source folder as an author would have it, packed entry by entry with odd stored modes.
        let source = fixture.root.appendingPathComponent("source", isDirectory: true)
        let files: [String: Data] = [
            "ContentInfo.plist": TestArchiveBuilder.contentInfo(productID: InstallFixture.productID, version: "1.2"),
            "Contents/readme.txt": Data("hello\n".utf8),
            "Contents/empty.dat": Data(),
            "Contents/deep/er/still/deeper.bin": Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }),
            "Contents/caf\u{E9}/\u{1F3AE}.json": Data("{}".utf8),
        ]
        var builder = TestArchiveBuilder()
        builder.directory("Contents/")
        builder.directory("Contents/emptydir/")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("Contents/emptydir"), withIntermediateDirectories: true)
        for (path, data) in files.sorted(by: { $0.key < $1.key }) {
            let url = source.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
            builder.file(path, data, permissions: path.hasSuffix(".bin") ? 0o6755 : 0o600)
        }
        builder.append(.init(type: 0o040000, pathBytes: Array("Contents/sticky/".utf8), permissions: 0o1777, uid: 0, uname: "root"))
        builder.append(.init(type: 0o100000, pathBytes: Array("Contents/sticky/root-owned".utf8), permissions: 0o4777,
                             uid: 0, uname: "root", data: Data("r".utf8)))
        try FileManager.default.createDirectory(at: source.appendingPathComponent("Contents/sticky"), withIntermediateDirectories: true)
        try Data("r".utf8).write(to: source.appendingPathComponent("Contents/sticky/root-owned"))

        let (url, product) = try fixture.product(builder, name: "p-1.2.tar.zst", version: "1.2")
        let recorder = PhaseRecorder()
        var options = InstallFixture.options
        options.observer = recorder
        let installed = try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: options)

        #expect(installed.standardizedFileURL == fixture.contentFolder.standardizedFileURL)
        #expect(recorder.phases == [.extracting, .swapped, .cleaned])
        #expect(!FileManager.default.fileExists(atPath: url.path), "archive deleted after install")
        #expect(fixture.stagingNames().isEmpty)
        let diff = try run("/usr/bin/diff", ["-r", source.path, installed.path])
        #expect(diff.status == 0, "diff -r: \(diff.output)")
        let snapshot = try Snapshot.take(installed)
        #expect(snapshot.count == files.count + 7 /* root, Contents, emptydir, deep, er, still, café */ + 2 /* sticky + file */)
        for (path, node) in snapshot {
            switch node {
            case .file(let mode, _): #expect(mode == 0o644, "\(path) mode \(String(mode, radix: 8))")
            case .directory(let mode): #expect(mode == 0o755, "\(path) mode \(String(mode, radix: 8))")
            case .other: Issue.record("unexpected object at \(path)")
            }
        }
        var info = stat()
        #expect(lstat(installed.appendingPathComponent("Contents/sticky/root-owned").path, &info) == 0)
        #expect(info.st_uid == getuid(), "owner from the archive must be ignored")
        #expect(fixture.store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("1.2"))
    }

    @Test("v1 → v2 update swaps atomically: a reader never sees a mix of versions")
    func updateIsAtomicForReaders() throws {
        let fixture = try InstallFixture()
        try fixture.installGood(version: "1")
        let folder = fixture.contentFolder.path
        let state = ReaderState()
        let group = DispatchGroup()
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            // Bounded: stops when told or after a fixed number of reads.
            for _ in 0..<2_000_000 where !state.stop.load(ordering: .acquiring) {
                let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                guard dir >= 0 else {
                    // RENAME_EXCHANGE means content/<id> never disappears during an update.
                    state.missing.add(1, ordering: .relaxed)
                    continue
                }
                defer { close(dir) }
                guard let plist = readAll(dir, "ContentInfo.plist"), let marker = readAll(dir, "Contents/version.txt"),
                      let level = readAll(dir, "Contents/levels/1.json")
                else { continue }
                let text = String(decoding: plist, as: UTF8.self)
                guard let start = text.range(of: "<key>ContentVersion</key>\n\t<string>"),
                      let end = text[start.upperBound...].range(of: "</string>")
                else { state.mismatches.add(1, ordering: .relaxed); continue }
                let version = String(text[start.upperBound..<end.lowerBound])
                let consistent = String(decoding: marker, as: UTF8.self) == "version \(version)\n"
                    && String(decoding: level, as: UTF8.self).contains("\"v\":\"\(version)\"")
                if !consistent { state.mismatches.add(1, ordering: .relaxed) }
                state.reads.add(1, ordering: .relaxed)
            }
        }
        for version in 2...12 {
            try fixture.installGood(version: "\(version)")
        }
        state.stop.store(true, ordering: .releasing)
        group.wait()
        #expect(state.mismatches.load(ordering: .relaxed) == 0)
        #expect(state.missing.load(ordering: .relaxed) == 0)
        #expect(state.reads.load(ordering: .relaxed) > 0)
        #expect(fixture.store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("12"))
        #expect(fixture.stagingNames().isEmpty)
    }

    @Test("recover removes staging leftovers and finishes interrupted cleanup and deletes; idempotent")
    func recovery() throws {
        let fixture = try InstallFixture()
        let v1 = try fixture.installGood(version: "1")
        let fm = FileManager.default
        let partial = fixture.store.stagingDirectory.appendingPathComponent("\(InstallFixture.productID)-dead1")
        try fm.createDirectory(at: partial.appendingPathComponent("Contents/a"), withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: partial.appendingPathComponent("Contents/a/x"))
        let trash = fixture.store.trashDirectory.appendingPathComponent("\(InstallFixture.productID)-dead2")
        try fm.createDirectory(at: trash.appendingPathComponent("Contents"), withIntermediateDirectories: true)

        let first = try ContentInstaller.recover(store: fixture.store)
        #expect(first.removedStaging == ["\(InstallFixture.productID)-dead1"])
        #expect(first.removedTrash == ["\(InstallFixture.productID)-dead2"])
        #expect(fixture.stagingNames().isEmpty)
        #expect(try fm.contentsOfDirectory(atPath: fixture.store.trashDirectory.path).isEmpty)
        #expect(try Snapshot.take(fixture.contentFolder) == v1)
        let second = try ContentInstaller.recover(store: fixture.store)
        #expect(second.removedStaging.isEmpty && second.removedTrash.isEmpty)
    }

    @Test("recover running alongside installs never removes an install in progress (store lock)")
    func recoverDuringInstall() throws {
        let fixture = try InstallFixture()
        try fixture.installGood(version: "1")
        let store = fixture.store
        var archives: [(URL, CatalogProduct)] = []
        for version in 2...6 {
            archives.append(try fixture.product(InstallFixture.package(version: "\(version)"), name: "v\(version).tar.zst", version: "\(version)"))
        }
        let state = ReaderState()
        let group = DispatchGroup()
        let started = DispatchSemaphore(value: 0)
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            started.signal()
            // At least one recover, however late the thread is scheduled on a busy machine.
            var rounds = 0
            repeat {
                if (try? ContentInstaller.recover(store: store)) == nil { state.mismatches.add(1, ordering: .relaxed) }
                state.reads.add(1, ordering: .relaxed)
                rounds += 1
            } while rounds < 100_000 && !state.stop.load(ordering: .acquiring)
        }
        started.wait()  // the installs start with the recovering thread running
        var failures: [String] = []
        for (url, product) in archives {
            do {
                try ContentInstaller.install(archive: url, product: product, store: store, options: InstallFixture.options)
            } catch {
                failures.append("\(error)")
            }
        }
        state.stop.store(true, ordering: .releasing)
        group.wait()
        #expect(failures.isEmpty)
        #expect(state.mismatches.load(ordering: .relaxed) == 0)
        #expect(state.reads.load(ordering: .relaxed) > 0)
        #expect(store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("6"))
        #expect(fixture.stagingNames().isEmpty)
    }

    @Test("Store: contentURL, installedVersion, list, deleteContent")
    func store() throws {
        let fixture = try InstallFixture()
        let store = fixture.store
        let id = InstallFixture.productID
        #expect(store.contentURL(forProductID: id) == nil)
        #expect(store.installedVersion(forProductID: id) == nil)
        #expect(store.installedProductIDs().isEmpty)
        try fixture.installGood(version: "1")
        let other = "com.example.music"
        let (url, product) = try fixture.product(
            InstallFixture.package(version: "3.1", productID: other), name: "m.tar.zst", version: "3.1", productID: other)
        try ContentInstaller.install(archive: url, product: product, store: store, options: InstallFixture.options)

        let contentURL = try #require(store.contentURL(forProductID: id))
        #expect(FileManager.default.fileExists(atPath: contentURL.appendingPathComponent("Contents/version.txt").path))
        #expect(store.installedVersion(forProductID: other) == ContentVersion("3.1"))
        #expect(store.installedProductIDs() == [id, other])

        #expect(try store.deleteContent(forProductID: id))
        #expect(store.contentURL(forProductID: id) == nil)
        #expect(!FileManager.default.fileExists(atPath: contentURL.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.trashDirectory.path).isEmpty)
        #expect(try !store.deleteContent(forProductID: id))
        #expect(store.installedProductIDs() == [other])
        #expect(store.contentURL(forProductID: "../store") == nil)
        #expect(throws: InstallError.self) { try store.deleteContent(forProductID: "..") }
    }

    @Test("a 255-byte product id installs, updates and deletes (scratch names stay within NAME_MAX)")
    func longProductID() throws {
        let fixture = try InstallFixture()
        let id = "com.example." + String(repeating: "x", count: 255 - 12)
        for version in ["1", "2"] {
            let (url, product) = try fixture.product(
                InstallFixture.package(version: version, productID: id), name: "long-\(version).tar.zst", version: version, productID: id)
            try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: InstallFixture.options)
        }
        #expect(fixture.store.installedVersion(forProductID: id) == ContentVersion("2"))
        #expect(try fixture.store.deleteContent(forProductID: id))
        #expect(fixture.store.installedProductIDs().isEmpty)
    }

    @Test("a product id that cannot name a folder is refused")
    func invalidProductID() throws {
        let fixture = try InstallFixture()
        for id in ["..", "a/b", "", "x\u{0}y"] {
            let (url, product) = try fixture.product(
                InstallFixture.package(version: "1", productID: id), name: "bad.tar.zst", version: "1", productID: id)
            expectInstallError({
                try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: InstallFixture.options)
            }) { error in
                if case .invalidProductID = error { return true }
                return false
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.store.contentDirectory.path).isEmpty)
    }
}

final class ReaderState: Sendable {
    let stop = Atomic<Bool>(false)
    let mismatches = Atomic<Int>(0)
    let reads = Atomic<Int>(0)
    let missing = Atomic<Int>(0)
}

/// Reads a whole (small) file relative to a directory descriptor; `nil` if it vanished meanwhile.
func readAll(_ dir: Int32, _ path: String) -> Data? {
    let fd = openat(dir, path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 { return nil }
        if count == 0 { return data }
        data.append(contentsOf: buffer[0..<count])
    }
}

/// Runs a program to completion; returns its status and combined output.
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String, signalled: Bool) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self), process.terminationReason == .uncaughtSignal)
}
