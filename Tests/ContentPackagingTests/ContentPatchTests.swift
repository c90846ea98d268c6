@testable import ContentPackaging
import Foundation
import PropertyBased
import Testing
import TestSupport

/// A precomputed patch (`iapcontent patch`) carries exactly the files whose content the old version lacks, each
/// compressed against its old version, and the new manifest against the old one; applied, it makes the new version's
/// manifest and files byte for byte, each checked against the signed chain before it is handed out.
@Suite("Patches: written and applied")
struct ContentPatchTests {
    static func text(_ seed: UInt64) -> Data { PackageFixture.text(count: 40_000, seed: seed) }

    @Test func aPatchCarriesOnlyWhatTheOldVersionLacksAndMakesTheNewVersion() throws {
        var edited = Self.text(20)
        edited.replaceSubrange(20_000..<20_010, with: Data("a new line".utf8))
        let fixture = try PatchFixture(
            old: [
                "Contents/same.txt": Self.text(10), "Contents/edited.txt": Self.text(20), "Contents/gone.txt": Self.text(30),
                "Contents/moved/from.txt": Self.text(40), "Contents/empty.txt": Data(),
            ],
            new: [
                "Contents/same.txt": Self.text(10), "Contents/edited.txt": edited, "Contents/added.txt": Self.text(50),
                "Contents/moved/to.txt": Self.text(40), "Contents/empty.txt": Data(),
            ])
        defer { fixture.remove() }
        let (applier, made) = try fixture.apply()
        #expect(applier.newManifestData == fixture.newManifest)
        // ContentInfo.plist names the new version: it changed too.
        #expect(Set(made.keys) == ["ContentInfo.plist", "Contents/edited.txt", "Contents/added.txt"], "a renamed file is linked by its hash, not carried")
        #expect(made["Contents/edited.txt"] == edited && made["Contents/added.txt"] == Self.text(50))
        #expect(made["ContentInfo.plist"] == (try Data(contentsOf: fixture.newFolder.appendingPathComponent("ContentInfo.plist"))))
        let editedEntry = try #require(applier.patch.entries.first { applier.newManifest.files[$0.newFile].path == "Contents/edited.txt" })
        #expect(editedEntry.oldFile.map { applier.oldManifest.files[$0].path } == "Contents/edited.txt")
        #expect(editedEntry.frame.count < 200, "an edit of 10 bytes in 40 KB costs \(editedEntry.frame.count) bytes against its old version")
        #expect(fixture.summary.bytes == fixture.patch.count && fixture.summary.files == 3)
    }

    /// Any old tree and any edits of it (files changed in place, added, removed, renamed): the patch made from the
    /// two packed versions makes every file of the new one that the old lacks, and no other.
    @Test func anyChangeRoundTrips() async {
        let change = Gen.int(in: 0...4)
        await propertyCheck(input: Gen.int(in: 1...6), change.array(of: 1...6), Gen.uint64()) { count, changes, seed in
            var old: [String: Data] = [:]
            for index in 0..<count { old["Contents/f\(index).txt"] = PackageFixture.text(count: 3_000 + index * 500, seed: seed &+ UInt64(index) * 2) }
            var new = old
            for (step, kind) in changes.enumerated() {
                let name = "Contents/f\(step % count).txt"
                switch kind {
                case 0: new[name]?.append(contentsOf: Data("edit \(step)".utf8))
                case 1: new["Contents/added\(step).txt"] = PackageFixture.text(count: 2_000, seed: seed &+ 100 &+ UInt64(step) * 2)
                case 2 where new.count > 1: new[name] = nil
                case 3: if let moved = new.removeValue(forKey: name) { new["Contents/renamed\(step).txt"] = moved }
                default: new[name] = Data()
                }
            }
            let fixture: PatchFixture
            do { fixture = try PatchFixture(old: old, new: new) } catch {
                Issue.record("could not pack or write the patch for \(changes): \(error)")
                return
            }
            defer { fixture.remove() }
            do {
                let (applier, made) = try fixture.apply()
                let held = Set(old.values.filter { !$0.isEmpty })
                let lacking = Set(new.filter { !$0.value.isEmpty && !held.contains($0.value) }.keys).union(["ContentInfo.plist"])
                #expect(Set(made.keys) == lacking, "changes \(changes)")
                for (path, bytes) in made where path != "ContentInfo.plist" { #expect(new[path] == bytes, "\(path) after \(changes)") }
                #expect(applier.newManifestData == fixture.newManifest)
            } catch {
                Issue.record("the patch did not apply after \(changes): \(error)")
            }
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
