import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Hostile archives generated with libarchive's writer. Each is offered as an update (v2) over a
/// good v1: the install must fail with the right error, v1 must stay byte-identical, the staging
/// folder must be gone and the sentinel folder beside the store untouched.
@Suite("Install: malicious archives")
struct InstallMaliciousArchiveTests {
    /// What the installer must say.
    enum Expect: Sendable, CustomStringConvertible {
        case unsafe, outside, size, count, wrongContent, archive, mismatch

        func matches(_ error: InstallError) -> Bool {
            switch (self, error) {
            case (.unsafe, .unsafeEntry), (.outside, .outsideLayout), (.size, .sizeExceeded),
                 (.count, .tooManyEntries), (.wrongContent, .wrongContent), (.archive, .archive),
                 (.mismatch, .archiveMismatch):
                true
            default: false
            }
        }

        var description: String { "\(self)" }
    }

    /// One hostile archive: how to build it and what must happen.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Text the error message must contain (which rule fired), when it matters.
        var reason: String = ""
        var expect: Expect
        var uncompressedSize: Int64?
        var entryCount: Int?
        /// Cut the written archive to this many bytes.
        var truncateTo: Int?
        var zstd = true
        var format: TestArchiveBuilder.Format = .pax
        /// Start from an empty builder instead of a valid v2.
        var bare = false
        /// Adds hostile entries to a valid v2 package (plist + Contents/ + version.txt).
        var build: @Sendable (inout TestArchiveBuilder, _ sentinel: String) -> Void

        var testDescription: String { name }
    }

    static func entry(_ type: UInt32, _ path: String, rdev: UInt64 = 0) -> TestArchiveBuilder.Entry {
        TestArchiveBuilder.Entry(type: type, pathBytes: Array(path.utf8), rdev: rdev)
    }

    static let cases: [Case] = [
        Case(name: "../x", reason: "'..'", expect: .unsafe) { b, _ in b.file("../x", text: "x") },
        Case(name: "escape to sentinel ../../../sentinel/x", reason: "'..'", expect: .unsafe) { b, _ in
            b.file("../../../sentinel/escaped", text: "x")
        },
        Case(name: "a/../../x", reason: "'..'", expect: .unsafe) { b, _ in b.file("a/../../x", text: "x") },
        Case(name: "Contents/../ContentInfo.plist", reason: "'..'", expect: .unsafe) { b, _ in
            b.file("Contents/../ContentInfo.plist", TestArchiveBuilder.contentInfo(productID: "evil", version: "9"))
        },
        Case(name: "trailing ..", reason: "'..'", expect: .unsafe) { b, _ in b.directory("Contents/..") },
        Case(name: "/tmp/x", reason: "absolute", expect: .unsafe) { b, _ in b.file("/tmp/iapcontent-evil-x", text: "x") },
        Case(name: "absolute path into sentinel", reason: "absolute", expect: .unsafe) { b, s in b.file(s + "/abs", text: "x") },
        Case(name: "//x", reason: "absolute", expect: .unsafe) { b, _ in b.file("//x", text: "x") },
        Case(name: "..\\x", reason: "'\\'", expect: .unsafe) { b, _ in b.file("..\\x", text: "x") },
        Case(name: "C:\\x", reason: "'\\'", expect: .unsafe) { b, _ in b.file("C:\\x", text: "x") },
        Case(name: "Contents\\..\\..\\x", reason: "'\\'", expect: .unsafe) { b, _ in b.file("Contents\\..\\..\\x", text: "x") },
        Case(name: "symlink to absolute path", reason: "symbolic link", expect: .unsafe) { b, s in b.symlink("Contents/abs", target: s) },
        Case(name: "symlink to ../", reason: "symbolic link", expect: .unsafe) { b, _ in b.symlink("Contents/up", target: "../../../sentinel") },
        Case(name: "symlink then file through it", reason: "symbolic link", expect: .unsafe) { b, s in
            b.symlink("Contents/esc", target: s)
            b.file("Contents/esc/through", text: "x")
        },
        Case(name: "directory, symlink with same name, then file", reason: "symbolic link", expect: .unsafe) { b, s in
            b.directory("Contents/d/")
            b.symlink("Contents/d", target: s)
            b.file("Contents/d/through", text: "x")
        },
        Case(name: "hardlink out", reason: "hard link", expect: .unsafe) { b, s in b.hardlink("Contents/h", target: s + "/victim") },
        Case(name: "hardlink ../ out", reason: "hard link", expect: .unsafe) { b, _ in
            b.hardlink("Contents/h", target: "../../../sentinel/victim")
        },
        Case(name: "hardlink carrying data (CVE-2016-5418)", reason: "hard link", expect: .unsafe) { b, _ in
            b.hardlink("Contents/h", target: "ContentInfo.plist", data: Data("overwrite".utf8))
        },
        Case(name: "hardlink to a later file", reason: "hard link", expect: .unsafe) { b, _ in
            b.hardlink("Contents/h", target: "Contents/later")
            b.file("Contents/later", text: "later")
        },
        Case(name: "hardlink to itself", reason: "hard link", expect: .unsafe) { b, _ in b.hardlink("Contents/h", target: "Contents/h") },
        Case(name: "hardlink to a directory", reason: "hard link", expect: .unsafe) { b, _ in b.hardlink("Contents/h", target: "Contents") },
        Case(name: "hardlink to an absolute path inside the archive's names", reason: "hard link", expect: .unsafe) { b, _ in
            b.hardlink("Contents/h", target: "/Contents/version.txt")
        },
        Case(name: "hardlink to ContentInfo.plist", reason: "hard link", expect: .unsafe) { b, _ in b.hardlink("Contents/h", target: "ContentInfo.plist") },
        Case(name: "hardlink to a missing file", reason: "hard link", expect: .unsafe) { b, _ in b.hardlink("Contents/h", target: "Contents/missing.txt") },
        Case(name: "hardlink through a ../ spelling of an earlier file", reason: "hard link", expect: .unsafe) { b, _ in
            b.hardlink("Contents/h", target: "Contents/levels/../version.txt")
        },
        Case(name: "FIFO", reason: "FIFO", expect: .unsafe) { b, _ in b.append(entry(0o010000, "Contents/fifo")) },
        Case(name: "character device", reason: "character device", expect: .unsafe) { b, _ in
            b.append(entry(0o020000, "Contents/null", rdev: 0x0103))
        },
        Case(name: "block device", reason: "block device", expect: .unsafe) { b, _ in
            b.append(entry(0o060000, "Contents/sda", rdev: 0x0800))
        },
        Case(name: "duplicate file/file", reason: "duplicate", expect: .unsafe) { b, _ in
            b.file("Contents/dup.txt", text: "one")
            b.file("Contents/dup.txt", text: "two")
        },
        Case(name: "duplicate file/dir", reason: "duplicate", expect: .unsafe) { b, _ in
            b.file("Contents/a", text: "file")
            b.directory("Contents/a/")
        },
        Case(name: "file then used as parent directory", reason: "is a file", expect: .unsafe) { b, _ in
            b.file("Contents/a", text: "file")
            b.file("Contents/a/b", text: "file")
        },
        Case(name: "case collision", reason: "collides", expect: .unsafe) { b, _ in
            b.file("Contents/a.txt", text: "lower")
            b.file("Contents/A.TXT", text: "upper")
        },
        Case(name: "case collision of implied directories", reason: "collides", expect: .unsafe) { b, _ in
            b.file("Contents/Dir/a", text: "1")
            b.file("Contents/dir/b", text: "2")
        },
        Case(name: "NFC/NFD collision", reason: "collides", expect: .unsafe) { b, _ in
            b.file("Contents/caf\u{E9}.txt", text: "nfc")
            b.file("Contents/cafe\u{301}.txt", text: "nfd")
        },
        Case(name: "evil.sh at root", expect: .outside) { b, _ in b.file("evil.sh", text: "#!/bin/sh\nrm -rf /\n") },
        Case(name: "Other/x", expect: .outside) { b, _ in b.file("Other/x", text: "x") },
        Case(name: "lowercase contents/x", expect: .outside) { b, _ in b.file("contents/x", text: "x") },
        Case(name: "Contents as a file", expect: .outside, bare: true) { b, _ in
            b.file("ContentInfo.plist", TestArchiveBuilder.contentInfo(productID: InstallFixture.productID, version: "2"))
            b.file("Contents", text: "x")
        },
        Case(name: "ContentInfo.plist as a directory", expect: .outside, bare: true) { b, _ in
            b.directory("ContentInfo.plist/")
            b.directory("Contents/")
        },
        Case(name: "non-UTF-8 name", reason: "UTF-8", expect: .unsafe, format: .ustar) { b, _ in
            b.append(TestArchiveBuilder.Entry(
                type: 0o100000, pathBytes: Array("Contents/".utf8) + [0xFF, 0xFE, 0x41], data: Data("x".utf8)))
        },
        Case(name: "control character in name", reason: "control character", expect: .unsafe) { b, _ in b.file("Contents/a\u{1B}[31m", text: "x") },
        Case(name: "component over 255 bytes", reason: "limit is 255", expect: .unsafe) { b, _ in
            b.file("Contents/" + String(repeating: "n", count: 300), text: "x")
        },
        Case(name: "zstd bomb over declared uncompressedSize", expect: .size, uncompressedSize: 1 << 20) { b, _ in
            b.append(TestArchiveBuilder.Entry(type: 0o100000, pathBytes: Array("Contents/zeros".utf8), zeroBytes: 64 << 20))
        },
        Case(name: "entry count over declared", expect: .count, entryCount: 5) { b, _ in
            for index in 0..<10 { b.file("Contents/f\(index)", text: "\(index)") }
        },
        Case(name: "truncated zstd archive", reason: "runcated", expect: .archive, truncateTo: 300) { b, _ in
            b.file("Contents/random.bin", Data((0..<200_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }))
        },
        Case(name: "size larger than the data left (truncated tar)", reason: "runcated", expect: .archive, truncateTo: 4096, zstd: false) { b, _ in
            b.file("Contents/big.bin", Data(repeating: 7, count: 100_000))
        },
        Case(name: "ContentInfo.plist with wrong product id", reason: "com.example.other", expect: .wrongContent, bare: true) { b, _ in
            b.file("ContentInfo.plist", TestArchiveBuilder.contentInfo(productID: "com.example.other", version: "2"))
            b.directory("Contents/")
        },
        Case(name: "ContentInfo.plist with wrong version", reason: "ContentVersion '7'", expect: .wrongContent, bare: true) { b, _ in
            b.file("ContentInfo.plist", TestArchiveBuilder.contentInfo(productID: InstallFixture.productID, version: "7"))
            b.directory("Contents/")
        },
        Case(name: "ContentInfo.plist missing", expect: .wrongContent, bare: true) { b, _ in
            b.directory("Contents/")
            b.file("Contents/x", text: "x")
        },
        Case(name: "ContentInfo.plist not a plist", expect: .wrongContent, bare: true) { b, _ in
            b.file("ContentInfo.plist", text: "IAPProductIdentifier = evil")
        },
    ]

    @Test("hostile archive is rejected and v1 stays intact", arguments: cases)
    func rejects(_ testCase: Case) throws {
        let fixture = try InstallFixture()
        let v1 = try fixture.installGood(version: "1")
        let sentinelBefore = try Snapshot.take(fixture.sentinel)

        var builder = testCase.bare ? TestArchiveBuilder() : InstallFixture.package(version: "2")
        builder.zstd = testCase.zstd
        builder.format = testCase.format
        testCase.build(&builder, fixture.sentinel.path)
        let url = fixture.archives.appendingPathComponent("bad.tar.zst")
        try builder.write(to: url)
        if let cut = testCase.truncateTo {
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(cut))
            try handle.close()
        }
        let product = try InstallFixture.catalogProduct(
            for: url, productID: InstallFixture.productID, version: "2",
            uncompressedSize: testCase.uncompressedSize ?? builder.declaredUncompressedSize,
            entryCount: testCase.entryCount ?? builder.entries.count)

        let recorder = PhaseRecorder()
        var options = InstallFixture.options
        options.observer = recorder
        expectInstallError({
            try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: options)
        }) { error in
            #expect(!error.description.isEmpty)
            return testCase.expect.matches(error) && (testCase.reason.isEmpty || error.description.contains(testCase.reason))
        }
        #expect(try Snapshot.take(fixture.contentFolder) == v1, "v1 changed")
        #expect(fixture.store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("1"))
        #expect(fixture.stagingNames().isEmpty, "staging leftovers")
        #expect(try Snapshot.take(fixture.sentinel) == sentinelBefore, "something was written beside the store")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/iapcontent-evil-x"))
        #expect(!recorder.phases.contains(.swapped))
        #expect(FileManager.default.fileExists(atPath: url.path), "a rejected archive is kept for diagnosis")
    }

    @Test("archive length or SHA-256 differing from the catalog is refused before reading entries")
    func archiveMismatch() throws {
        let fixture = try InstallFixture()
        let v1 = try fixture.installGood(version: "1")
        let (url, product) = try fixture.product(InstallFixture.package(version: "2"), name: "v2.tar.zst", version: "2")
        var wrongHash = product
        wrongHash.sha256 = String(repeating: "0", count: 64)
        var wrongLength = product
        wrongLength.length += 1
        for bad in [wrongHash, wrongLength] {
            expectInstallError({
                try ContentInstaller.install(archive: url, product: bad, store: fixture.store, options: InstallFixture.options)
            }) { error in
                if case .archiveMismatch = error { return true }
                return false
            }
        }
        #expect(try Snapshot.take(fixture.contentFolder) == v1)
    }

    @Test("manifest sizes are enforced per file")
    func manifestSizeMismatch() throws {
        let fixture = try InstallFixture()
        let (url, product) = try fixture.product(InstallFixture.package(version: "2"), name: "v2.tar.zst", version: "2")
        let manifest = PackageManifest(
            productID: product.productID, contentVersion: product.contentVersion, archiveName: "v2.tar.zst",
            archiveSize: product.length, archiveSHA256: product.sha256, uncompressedSize: product.uncompressedSize,
            entryCount: product.entryCount, files: [
                .init(path: "ContentInfo.plist", size: 10, sha256: ""),
            ])
        expectInstallError({
            try ContentInstaller.install(
                archive: url, product: product, store: fixture.store, manifest: manifest, options: InstallFixture.options)
        }) { error in
            if case .sizeExceeded(let path, let declared, _) = error {
                return path == "ContentInfo.plist" && declared == 10
            }
            return false
        }
        #expect(fixture.store.contentURL(forProductID: product.productID) == nil)
    }

    @Test("an archive rewritten in place after the pre-scan stops at the declared size")
    func rewrittenAfterPrescanStopsAtCap() throws {
        let fixture = try InstallFixture()
        let v1 = try fixture.installGood(version: "1")
        var small = TestArchiveBuilder.package(productID: InstallFixture.productID, version: "2", files: [
            "data.bin": Data(repeating: 1, count: 1000),
        ])
        small.zstd = true
        let (url, product) = try fixture.product(small, name: "v2.tar.zst", version: "2", uncompressedSize: 1 << 20)
        var bomb = TestArchiveBuilder()
        bomb.file("ContentInfo.plist", TestArchiveBuilder.contentInfo(productID: InstallFixture.productID, version: "2"))
        bomb.directory("Contents/")
        bomb.append(TestArchiveBuilder.Entry(type: 0o100000, pathBytes: Array("Contents/data.bin".utf8), zeroBytes: 64 << 20))
        let bombURL = fixture.archives.appendingPathComponent("bomb.tar.zst")
        try bomb.write(to: bombURL)
        let bombBytes = try Data(contentsOf: bombURL)

        // Same inode, new bytes: what an attacker with write access to the download folder could do.
        let rewriter = ArchiveRewriter(path: url.path, bytes: bombBytes)
        var options = InstallFixture.options
        options.observer = rewriter
        expectInstallError({
            try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: options)
        }) { error in
            guard case .sizeExceeded(let path, let declared, let written) = error else { return false }
            // Stopped at the first block past the 1000 declared bytes, not after 64 MiB.
            return path == "Contents/data.bin" && declared == 1000 && written > 1000 && written <= 1000 + (1 << 16)
        }
        #expect(rewriter.didRewrite)
        #expect(try Snapshot.take(fixture.contentFolder) == v1)
        #expect(fixture.stagingNames().isEmpty)
    }
}

/// Records install phases (stands in for the download journal).
final class PhaseRecorder: InstallPhaseObserver {
    private let state = Mutex<[InstallPhase]>([])
    var phases: [InstallPhase] { state.withLock { $0 } }
    func install(of productID: String, reached phase: InstallPhase) {
        state.withLock { $0.append(phase) }
    }
}

/// Overwrites the archive in place (same inode) when extraction begins.
final class ArchiveRewriter: InstallPhaseObserver {
    let path: String
    let bytes: Data
    private let done = Mutex(false)
    var didRewrite: Bool { done.withLock { $0 } }

    init(path: String, bytes: Data) {
        self.path = path
        self.bytes = bytes
    }

    func install(of productID: String, reached phase: InstallPhase) {
        guard phase == .extracting, let handle = FileHandle(forWritingAtPath: path) else { return }
        try? handle.truncate(atOffset: 0)
        try? handle.write(contentsOf: bytes)
        try? handle.close()
        done.withLock { $0 = true }
    }
}

import Synchronization
