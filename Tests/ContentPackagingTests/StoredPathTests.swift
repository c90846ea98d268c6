@testable import ContentPackaging
import Foundation
import Testing

/// The manifest model keeps paths as byte ranges of a shared buffer but reads and writes them as `String`:
/// every path must come back exactly, compare and hash by its bytes, and encode as before.
@Suite("stored path")
struct StoredPathTests {
    /// Paths of different lengths, with non-ASCII names (2-, 3- and 4-byte UTF-8 sequences).
    static let samples = [
        "ContentInfo.plist", "Contents", "Contents/a", "Contents/Levels/level-01.json", "Contents/Müsik/Größe.txt",
        "Contents/日本語/テキスト.txt", "Contents/emoji/🎮🎲.bin", "Contents/" + String(repeating: "x", count: 900),
    ]

    @Test("a builder's paths share one buffer and read back exactly")
    func builderSharesOneBuffer() {
        var builder = StoredPath.Builder()
        for path in Self.samples { builder.append(Array(path.utf8)) }
        #expect(builder.count == Self.samples.count)
        let paths = builder.finish()
        #expect(paths.map(\.string) == Self.samples)
        #expect(paths.map(\.count) == Self.samples.map(\.utf8.count))
        let bases = Set(paths.map { path in path.utf8.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) - UInt(path.utf8.startIndex) } })
        #expect(bases.count == 1, "one buffer for every path")
        #expect(MemoryLayout<StoredPath>.size == 16)
    }

    @Test("equality and hashing are by bytes, whichever buffer holds them")
    func equalityAndHashByBytes() {
        var builder = StoredPath.Builder()
        for path in Self.samples { builder.append(Array(path.utf8)) }
        let shared = builder.finish()
        for (index, path) in Self.samples.enumerated() {
            let own = StoredPath(path)
            #expect(shared[index] == own)
            #expect(shared[index].hashValue == own.hashValue)
            #expect(Set(shared).contains(own))
        }
        #expect(StoredPath("Contents/a") != StoredPath("Contents/b"))
        #expect(StoredPath("Contents/a") != StoredPath("Contents/ab"))
        // The same name in two Unicode normalizations: equal as `String`s, different paths.
        let composed = "Contents/caf\u{E9}", decomposed = "Contents/cafe\u{301}"
        #expect(composed == decomposed)
        #expect(StoredPath(composed) != StoredPath(decomposed))
        #expect(StoredPath("Contents/a").precedes(StoredPath("Contents/b")))
        #expect(!StoredPath("Contents/b").precedes(StoredPath("Contents/a")))
    }

    @Test("the parent is the path up to its last '/', in the same buffer")
    func parentSharesTheBuffer() {
        #expect(StoredPath("Contents/Müsik/Größe.txt").parent == StoredPath("Contents/Müsik"))
        #expect(StoredPath("Contents/Müsik").parent == StoredPath("Contents"))
        #expect(StoredPath("Contents").parent == nil)
    }

    @Test("setting a file's path gives it a buffer of its own; the others keep theirs")
    func settingThePathReplacesIt() {
        var builder = StoredPath.Builder()
        builder.append(Array("Contents/a.txt".utf8))
        builder.append(Array("Contents/b.txt".utf8))
        let paths = builder.finish()
        var first = PackageManifest.File(storedPath: paths[0], size: 1, storedSHA256: StoredSHA256(""))
        let second = PackageManifest.File(storedPath: paths[1], size: 2, storedSHA256: StoredSHA256(""))
        first.path = "Contents/Größe.txt"
        #expect(first.path == "Contents/Größe.txt")
        #expect(first.storedPath == StoredPath("Contents/Größe.txt"))
        #expect(second.path == "Contents/b.txt")
        #expect(paths[0].string == "Contents/a.txt")
        #expect(first == PackageManifest.File(path: "Contents/Größe.txt", size: 1, sha256: ""))
        #expect(MemoryLayout<PackageManifest.File>.stride <= 80)
    }

    @Test("JSON is the same whether a file's path shares a buffer or has its own, and reads back equal")
    func codableRoundTripIsByteIdentical() throws {
        let sha = String(repeating: "ab", count: 32)
        var builder = StoredPath.Builder()
        for path in Self.samples { builder.append(Array(path.utf8)) }
        let shared = builder.finish().map { PackageManifest.File(storedPath: $0, size: 7, storedSHA256: StoredSHA256(sha), dataOffset: 512) }
        let own = Self.samples.map { PackageManifest.File(path: $0, size: 7, sha256: sha, dataOffset: 512) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let sharedJSON = try encoder.encode(shared)
        let ownJSON = try encoder.encode(own)
        #expect(sharedJSON == ownJSON)
        let text = String(decoding: ownJSON, as: UTF8.self)
        #expect(text.contains("\"path\" : \"Contents/日本語/テキスト.txt\""))
        let decoded = try JSONDecoder().decode([PackageManifest.File].self, from: sharedJSON)
        #expect(decoded == shared)
        #expect(try encoder.encode(decoded) == sharedJSON)
    }

    @Test("a file record is 64 bytes, and keeps any path, offset and hash exactly")
    func fileRecordLayout() throws {
        #expect(MemoryLayout<PackageManifest.File>.stride == 64)
        var builder = StoredPath.Builder()
        builder.append(Array("Contents/a.txt".utf8))
        builder.append(Array("Contents/b/c.txt".utf8))
        let paths = builder.finish()
        let shared = PackageManifest.File(storedPath: paths[1], size: 7, storedSHA256: StoredSHA256(String(repeating: "ab", count: 32)), dataOffset: 0)
        #expect(shared.storedPath.sharesBuffer(with: paths[0]) && shared.path == "Contents/b/c.txt" && shared.dataOffset == 0)
        // Longer than a record's 16-bit length: kept whole in its own buffer.
        let long = "Contents/" + String(repeating: "x", count: 70_000)
        var file = PackageManifest.File(path: long, size: -1, sha256: "NOT HEX", dataOffset: nil)
        #expect(file.path == long && file.size == -1 && file.sha256 == "NOT HEX" && file.dataOffset == nil)
        file.dataOffset = Int64.max
        #expect(file.dataOffset == Int64.max)
        let json = try JSONEncoder().encode(file)
        #expect(try JSONDecoder().decode(PackageManifest.File.self, from: json) == file)
        #expect(!String(decoding: try JSONEncoder().encode(shared.with(dataOffset: nil)), as: UTF8.self).contains("dataOffset"))
    }
}

extension PackageManifest.File {
    /// This record with `dataOffset`.
    fileprivate func with(dataOffset: Int64?) -> Self {
        var copy = self
        copy.dataOffset = dataOffset
        return copy
    }
}
