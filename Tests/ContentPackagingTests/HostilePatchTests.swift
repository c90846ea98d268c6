@testable import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A patch is a new surface a client reads: every way one can be wrong — cut short, padded, reordered, made for
/// another version, lying about a file — is refused with the field, entry or file and its byte offset, and nothing
/// it would make is handed out.
@Suite("Patches: hostile input")
struct HostilePatchTests {
    static let fixture: PatchFixture = {
        var edited = PackageFixture.text(count: 30_000, seed: 7)
        edited.append(contentsOf: Data("one more line\n".utf8))
        return try! PatchFixture(
            old: ["Contents/a.txt": PackageFixture.text(count: 30_000, seed: 7), "Contents/b.txt": PackageFixture.text(count: 20_000, seed: 8)],
            new: [
                "Contents/a.txt": edited, "Contents/b.txt": PackageFixture.text(count: 20_000, seed: 8),
                "Contents/c.txt": PackageFixture.text(count: 9_000, seed: 9),
            ])
    }()

    /// `patch` with `bytes` written at `offset`.
    static func overwrite(_ patch: Data, at offset: Int, _ bytes: [UInt8]) -> Data {
        var copy = patch
        copy.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        return copy
    }

    static func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    /// Applies `patch` to the fixture's old version and returns the refusal.
    static func refusal(_ patch: Data, installed: Data? = nil, expecting sha: String? = nil) -> PatchError? {
        do {
            _ = try fixture.apply(patch, installedManifest: installed, expecting: sha)
            return nil
        } catch let error as PatchError {
            return error
        } catch {
            Issue.record("not a PatchError: \(error)")
            return nil
        }
    }

    static var entries: Int { PatchFormat.headerLength }
    /// The fixture carries three files: a.txt, c.txt and ContentInfo.plist (it names the new version).
    static var count: Int { 3 }
    static var lastEntry: Int { entries + (count - 1) * PatchFormat.entryLength }
    static var frames: Int { entries + count * PatchFormat.entryLength }

    static let cases: [(name: String, patch: @Sendable () -> Data, says: String, offset: Int?)] = [
        ("empty", { Data() }, "before the magic", 0),
        ("not a patch", { Data(repeating: 0x41, count: 200) }, "no IAPPATCH magic", 0),
        ("a newer format", { overwrite(fixture.patch, at: 8, [2, 0]) }, "format version 2", 8),
        ("a reserved field set", { overwrite(fixture.patch, at: 10, [1, 0]) }, "reserved", 10),
        ("cut in the header", { fixture.patch.prefix(50) }, "ends (50 bytes) before", 48),
        ("more entries than fit", { overwrite(fixture.patch, at: 12, le32(1 << 30)) }, "do not fit", 12),
        ("entries out of order", {
            let first = Array(fixture.patch[entries..<(entries + 12)]), second = Array(fixture.patch[(entries + 12)..<(entries + 24)])
            return overwrite(fixture.patch, at: entries, second + first)
        }, "ascending order", entries + 12),
        ("a frame past the end", { overwrite(fixture.patch, at: entries + 8, le32(1 << 30)) }, "does not fit", entries),
        ("a frame of no bytes", { overwrite(fixture.patch, at: entries + 8, le32(0)) }, "does not fit", entries),
        ("cut in the last frame", { fixture.patch.dropLast(5) }, "does not fit", lastEntry),
        ("bytes after its end", { fixture.patch + Data([0]) }, "bytes after its end", frames),
        ("a manifest frame that lies", {
            let at = frames + 20
            return overwrite(fixture.patch, at: at, [fixture.patch[at] ^ 0xFF])
        }, "the new manifest", frames),
        ("an entry for a file the manifest lacks", { overwrite(fixture.patch, at: lastEntry, le32(999)) }, "new file 999", nil),
        ("an entry against an old file the manifest lacks", { overwrite(fixture.patch, at: entries + 4, le32(999)) }, "old file 999", nil),
    ]

    @Test(arguments: cases.indices)
    func isRefusedWithItsField(_ index: Int) {
        let test = Self.cases[index]
        let error = Self.refusal(test.patch())
        #expect(error?.reason.contains(test.says) == true, "\(test.name): \(error.map { "\($0)" } ?? "accepted")")
        if let offset = test.offset { #expect(error?.offset == offset, "\(test.name): \(error.map { "\($0)" } ?? "accepted")") }
    }

    @Test func aPatchForAnotherInstalledVersionIsRefused() {
        var other = Self.fixture.oldManifest
        other[other.count - 1] ^= 1
        #expect(Self.refusal(Self.fixture.patch, installed: other)?.reason.contains("for another installed version") == true)
    }

    @Test func aPatchThatMakesAnotherManifestThanTheCatalogsIsRefused() {
        let error = Self.refusal(Self.fixture.patch, expecting: String(repeating: "0", count: 64))
        #expect(error?.reason.contains("the catalog names 0000") == true, "\(error.map { "\($0)" } ?? "accepted")")
    }

    /// Each file's frame swapped for the other's: the bytes made are not the file the manifest lists (or do not
    /// decode at all), and nothing is handed out.
    @Test func framesSwappedBetweenFilesAreRefused() throws {
        let patch = try ContentPatch.read(Self.fixture.patch)
        #expect(patch.entries.count == Self.count)
        let frames = patch.entries.map { Self.fixture.patch[$0.frame] }
        let order = [1, 0] + Array(2..<frames.count)  // the first two files' frames trade places
        var swapped = Self.fixture.patch.prefix(Self.entries)
        for (index, entry) in patch.entries.enumerated() {
            swapped += Data(Self.le32(UInt32(entry.newFile)) + Self.le32(entry.oldFile.map(UInt32.init) ?? .max) + Self.le32(UInt32(frames[order[index]].count)))
        }
        swapped += Self.fixture.patch[patch.manifestFrame]
        for index in order { swapped += frames[index] }
        let error = Self.refusal(swapped)
        #expect(error != nil && error!.offset != nil, "\(error.map { "\($0)" } ?? "accepted")")
    }

    /// The installed file a frame starts from changed since it was installed: its frame does not make the new file,
    /// and the refusal says what to do.
    @Test func anInstalledFileChangedSinceIsRefused() throws {
        let applier = try PatchApplier(Self.fixture.patch, installedManifest: Self.fixture.oldManifest, expectedManifestSHA256: Self.fixture.newManifestSHA256)
        let entry = try #require(applier.patch.entries.first { $0.oldFile != nil })
        var damaged = try Data(contentsOf: Self.fixture.oldFolder.appendingPathComponent(applier.oldManifest.files[entry.oldFile!].path))
        damaged[100] ^= 0xFF
        #expect(throws: PatchError.self) { try applier.file(entry, old: damaged) }
        do { _ = try applier.file(entry, old: damaged) } catch {
            #expect("\(error)".contains("fetches the changed chunks") || "\(error)".contains("may have changed"), "\(error)")
        }
    }
}
