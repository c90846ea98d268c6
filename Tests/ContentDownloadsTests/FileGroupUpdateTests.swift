@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// What an update of content made of many small files costs once they are grouped into small frames: the changed
/// files' bytes and at most one frame of neighbours each, where content-defined chunks cost a megabyte apiece.
@Suite("file groups: update cost")
struct FileGroupUpdateTests {
    /// 300 files of 1–24 KiB, alternately word text and random bytes, in 6 folders.
    static func files(seed: UInt64) -> [String: Data] {
        var files: [String: Data] = [:]
        for index in 0..<300 {
            let size = 1024 + Int((UInt64(index) &* 2_654_435_761 &+ seed) % (23 << 10))
            let path = String(format: "Contents/world-%02d/item-%03d.%@", index / 50, index % 50, index % 2 == 0 ? "json" : "bin")
            files[path] = index % 2 == 0 ? PackageFixture.text(count: size, seed: UInt64(index)) : PackageFixture.bytes(count: size, seed: UInt64(index))
        }
        return files
    }

    static func manifest(_ files: [String: Data], version: String, groups: FileGroupBudget?, in root: TemporaryDirectory) throws -> PackageManifest {
        let folder = try PackageFixture.make(at: root.appending("v\(version)-\(groups != nil)"), productID: "com.example.groups", version: version, files: files)
        var packer = Packer()
        packer.fileGroups = groups
        return try packer.pack(folder: folder, outputDirectory: root.appending("out-\(version)-\(groups != nil)")).manifest
    }

    @Test("k scattered small files rewritten: fetched ≤ 1.2 × their bytes + 64 KiB × k (content-defined chunks alone fetch several times more)")
    func scatteredChangesCostTheirBytes() throws {
        let root = try TemporaryDirectory("groups-update")
        let old = Self.files(seed: 5)
        var new = old
        let changed = old.keys.sorted().enumerated().filter { $0.offset % 37 == 7 }.map(\.element)  // 8 files, spread out
        var changedBytes: Int64 = 0
        for path in changed {
            var data = new[path]!
            data[data.count / 2] ^= 0x5A
            new[path] = data
            changedBytes += Int64(data.count)
        }
        let grouped = try UpdateSize.between(
            installed: Self.manifest(old, version: "1.0", groups: .standard, in: root),
            offered: Self.manifest(new, version: "2.0", groups: .standard, in: root))
        // ContentInfo.plist changes too (the version): k is one more than the files rewritten.
        let k = changed.count + 1
        let bound = (changedBytes + 1024) * 12 / 10 + Int64(k) * (64 << 10)
        #expect(grouped.writtenFiles == k)
        #expect(grouped.fetchBytes <= bound, "fetched \(grouped.fetchBytes) of \(grouped.archiveBytes), bound \(bound)")
        #expect(grouped.fetchChunks <= k)

        let ungrouped = try UpdateSize.between(
            installed: Self.manifest(old, version: "1.0", groups: nil, in: root),
            offered: Self.manifest(new, version: "2.0", groups: nil, in: root))
        #expect(ungrouped.fetchBytes > 3 * grouped.fetchBytes, "without groups: \(ungrouped.fetchBytes), with: \(grouped.fetchBytes)")
    }
}
