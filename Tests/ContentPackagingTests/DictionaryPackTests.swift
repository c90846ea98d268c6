@testable import ContentPackaging
import Crypto
import Foundation
import SystemSupport
import Testing
import TestSupport

/// `pack --dictionary`: small files' frames compressed with a dictionary trained on them and stored at the archive's
/// start. The archive is smaller, reproducible, read by `inspect` and by `zstd -D` with the stored dictionary, and
/// every check a client makes of the dictionary refuses a stored frame or a record that does not match.
@Suite("pack: a dictionary for small files' frames")
struct DictionaryPackTests {
    static func records(count: Int, seed: UInt64 = 1) -> [String: Data] { PackageFixture.sharedBlockRecords(count: count, seed: seed) }

    static func pack(_ files: [String: Data], dictionary: Int?, in directory: TemporaryDirectory, name: String) throws -> PackResult {
        let folder = try PackageFixture.make(at: directory.appending("src-\(name)"), productID: "com.example.dict", files: files)
        var packer = Packer()
        packer.dictionaryBytes = dictionary
        return try packer.pack(folder: folder, outputDirectory: directory.appending("out-\(name)"))
    }

    @Test("the archive is smaller than without a dictionary, reproducible, inspected clean, and its chunks start after the stored dictionary")
    func smallerAndSound() throws {
        let directory = try TemporaryDirectory("dictionary")
        let files = Self.records(count: 600)
        let plain = try Self.pack(files, dictionary: nil, in: directory, name: "plain")
        let with = try Self.pack(files, dictionary: 16 << 10, in: directory, name: "dict")
        let again = try Self.pack(files, dictionary: 16 << 10, in: directory, name: "again")
        let record = try #require(with.manifest.dictionary)
        #expect(plain.manifest.dictionary == nil)
        #expect(with.manifest.archiveSize * 100 < plain.manifest.archiveSize * 90,
                "with a dictionary \(with.manifest.archiveSize) bytes, without \(plain.manifest.archiveSize)")
        #expect(try Data(contentsOf: with.archiveURL) == Data(contentsOf: again.archiveURL), "the same folder gives the same archive")
        #expect(with.manifest.chunks?.first?.offset == record.length)
        #expect(with.manifest.chunkIndexProblems().isEmpty)
        #expect(record.size <= 16 << 10 && record.id != 0)
        let report = try PackageInspector().inspect(archive: with.archiveURL)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.manifestChecked)
        // The compact manifest and the JSON form carry the record.
        #expect(try PackageManifest.decode(with.manifest.compactEncoded()).dictionary == record)
        #expect(try PackageManifest.decode(with.manifest.encoded()).dictionary == record)
    }

    @Test("zstd -D with the stored dictionary and tar unpack every file; bsdtar alone cannot, and says why")
    func standardToolsWithTheDictionary() throws {
        let directory = try TemporaryDirectory("dictionary")
        let files = Self.records(count: 300)
        let result = try Self.pack(files, dictionary: 8 << 10, in: directory, name: "tools")
        let archive = result.archiveURL.path
        let target = directory.appending("x")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        // The recipe docs/MANIFEST-FORMAT.md gives: the payload of the first (skippable) frame is the dictionary, compressed.
        let script = """
            set -e
            length=$(od -An -tu4 -j4 -N4 '\(archive)' | tr -d ' ')
            tail -c +9 '\(archive)' | head -c "$length" | zstd -d -q > '\(directory.appending("dict").path)'
            zstd -D '\(directory.appending("dict").path)' -d -q -c '\(archive)' | tar -x -C '\(target.path)'
            """
        let run = try CommandRunner.run("/bin/sh", ["-c", script])
        #expect(run.status == 0, "\(run.stderr)")
        for (path, data) in files {
            #expect(try Data(contentsOf: target.appendingPathComponent(path)) == data, "\(path)")
        }
        let bsdtar = try CommandRunner.run("/usr/bin/bsdtar", ["-tf", archive])
        #expect(bsdtar.status != 0 && bsdtar.stderr.contains("Dictionary"), "\(bsdtar.stderr)")
    }

    @Test("a tree with too few small-file bytes is packed without a dictionary")
    func tooLittleToTrainOn() throws {
        let directory = try TemporaryDirectory("dictionary")
        let result = try Self.pack(Self.records(count: 6), dictionary: 64 << 10, in: directory, name: "few")
        #expect(result.manifest.dictionary == nil)
        #expect(try PackageInspector().inspect(archive: result.archiveURL).problems.isEmpty)
    }

    @Test("a size outside 4 KiB…1 MiB is refused before anything is written")
    func sizeOutOfRange() throws {
        let directory = try TemporaryDirectory("dictionary")
        #expect(throws: PackError.self) { try Self.pack(Self.records(count: 40), dictionary: 100, in: directory, name: "tiny") }
        #expect(!FileManager.default.fileExists(atPath: directory.appending("out-tiny/com.example.dict-1.0.tar.zst").path))
    }

    @Test("the stored frame is used only when it is exactly what the record names: length, SHA-256, size, ID, header")
    func storedFrameChecks() throws {
        let directory = try TemporaryDirectory("dictionary")
        let result = try Self.pack(Self.records(count: 300), dictionary: 8 << 10, in: directory, name: "checks")
        let record = try #require(result.manifest.dictionary)
        let archive = try [UInt8](Data(contentsOf: result.archiveURL))
        let stored = Array(archive[0..<Int(record.length)])
        #expect(try FrameDictionary(stored: stored, record: record).record == record)

        func refusal(_ bytes: [UInt8], _ record: ArchiveDictionary) -> String? {
            do { _ = try FrameDictionary(stored: bytes, record: record); return nil } catch { return error.message }
        }
        var flipped = stored
        flipped[stored.count / 2] ^= 0x01
        #expect(refusal(flipped, record)?.contains("SHA-256") == true)
        #expect(refusal(Array(stored.dropLast()), record)?.contains("not the \(record.length)-byte dictionary frame") == true)
        // A record that names the right bytes but the wrong size or ID: the hash matches, the contents do not.
        var size = record
        size.size += 1
        #expect(refusal(stored, size)?.contains("does not declare") == true)
        var id = record
        id.id &+= 1
        #expect(refusal(stored, id)?.contains("ID") == true)
        // A frame whose own header lies about its length, with a record made to match it.
        var header = stored
        header[4] ^= 0x01
        let lying = ArchiveDictionary(length: record.length, size: record.size, id: record.id, sha256: SHA256Hex.of(header))
        #expect(refusal(header, lying)?.contains("skippable-frame header") == true)
        // The archive's start read alone (inspect): a frame declaring more than a reader takes, or cut short.
        var huge = stored
        huge.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: DictionaryError.self) { try FrameDictionary.stored(atStartOf: huge, readFrame: { _ in huge }) }
        #expect(throws: DictionaryError.self) { try FrameDictionary.stored(atStartOf: stored, readFrame: { _ in Array(stored.prefix(100)) }) }
        #expect(try FrameDictionary.stored(atStartOf: [0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0], readFrame: { _ in [] }) == nil, "a plain zstd archive")
    }

    @Test("a frame needs its dictionary: decoded without it, or with another archive's, the chunk is refused")
    func framesNeedTheirDictionary() throws {
        let directory = try TemporaryDirectory("dictionary")
        let result = try Self.pack(Self.records(count: 300), dictionary: 8 << 10, in: directory, name: "need")
        let other = try Self.pack(Self.records(count: 300, seed: 99), dictionary: 8 << 10, in: directory, name: "other")
        let manifest = result.manifest
        let chunk = try #require(manifest.chunks?.first)
        let archive = try [UInt8](Data(contentsOf: result.archiveURL))
        let frame = Array(archive[Int(chunk.offset)..<Int(chunk.offset + chunk.length)])
        let own = try FrameDictionary(stored: Array(archive[0..<Int(manifest.dictionary!.length)]), record: manifest.dictionary!)
        let otherArchive = try [UInt8](Data(contentsOf: other.archiveURL))
        let foreign = try FrameDictionary(stored: Array(otherArchive[0..<Int(other.manifest.dictionary!.length)]), record: other.manifest.dictionary!)
        for (name, dictionary) in [("none", nil), ("another archive's", foreign)] as [(String, FrameDictionary?)] {
            var decoder = ChunkDecoder(maximumLength: Int(chunk.uncompressedLength), dictionary: dictionary)
            #expect(throws: ChunkError.self, "\(name)") { try frame.withUnsafeBytes { _ = try decoder.decode($0, as: chunk, index: 0) } }
        }
        var decoder = ChunkDecoder(maximumLength: Int(chunk.uncompressedLength), dictionary: own)
        #expect(throws: Never.self) { try frame.withUnsafeBytes { _ = try decoder.decode($0, as: chunk, index: 0) } }
    }

    @Test("inspect names a damaged dictionary: its stored bytes changed, or the manifest's record of it")
    func inspectNamesADamagedDictionary() throws {
        let directory = try TemporaryDirectory("dictionary")
        let result = try Self.pack(Self.records(count: 300), dictionary: 8 << 10, in: directory, name: "inspect")
        let record = try #require(result.manifest.dictionary)
        var archive = try Data(contentsOf: result.archiveURL)
        archive[Int(record.length) - 2] ^= 0x40  // inside the compressed dictionary
        try archive.write(to: result.archiveURL)
        let damaged = try? PackageInspector().inspect(archive: result.archiveURL)
        let problems = damaged?.problems.map(\.message) ?? ["refused"]
        #expect(!problems.isEmpty, "a changed dictionary byte must not pass")
        #expect(ChunkIndexVerifier.problems(archiveAt: result.archiveURL.path, manifest: result.manifest)
            .contains { $0.contains("dictionary") && $0.contains("SHA-256") })
    }

    @Test("hostile records: every bound is checked with the chunk index, by the JSON and the compact reader alike")
    func hostileRecords() throws {
        let directory = try TemporaryDirectory("dictionary")
        let result = try Self.pack(Self.records(count: 300), dictionary: 8 << 10, in: directory, name: "hostile")
        let manifest = result.manifest
        let cases: [(String, (inout ArchiveDictionary) -> Void, String)] = [
            ("no bytes", { $0.length = 0 }, "stored frame"),
            ("past the archive", { $0.length = manifest.archiveSize + 1 }, "stored frame"),
            ("larger than a reader fetches", { $0.length = ArchiveDictionary.largestLength + 1 }, "stored frame"),
            ("empty dictionary", { $0.size = 0 }, "size"),
            ("larger than a reader loads", { $0.size = ArchiveDictionary.largestSize + 1 }, "size"),
            ("ID 0", { $0.id = 0 }, "ID is 0"),
            ("not a SHA-256", { $0.sha256 = "xyz" }, "SHA-256"),
            ("one byte longer: the chunks no longer follow it", { $0.length += 1 }, "chunk 0 starts at archive byte"),
        ]
        for (name, change, expected) in cases {
            var hostile = manifest
            change(&hostile.dictionary!)
            let problems = hostile.chunkIndexProblems()
            #expect(problems.contains { $0.contains(expected) }, "\(name): \(problems)")
            // JSON goes through the same check when a client decodes it for a chunk plan; the compact reader refuses it.
            if let compact = try? hostile.compactEncoded() {
                #expect(throws: ManifestFormatError.self, "\(name)") { try PackageManifest.decode(compact) }
            }
        }
        // A one-frame manifest cannot name a dictionary: only chunk-indexed archives store one.
        var oneFrame = manifest
        oneFrame.chunks = nil
        oneFrame.chunking = nil
        oneFrame.schema = 1
        oneFrame.archiveSHA256 = String(repeating: "a", count: 64)
        for index in oneFrame.files.indices { oneFrame.files[index].dataOffset = nil }
        oneFrame.directories = nil
        oneFrame.linkedFiles = nil
        let refused = #expect(throws: ManifestFormatError.self) { try PackageManifest.decode(oneFrame.compactEncoded()) }
        #expect(refused?.field == "dictionary", "\(String(describing: refused))")
        // A compact manifest whose dictionary flag is set but whose record is cut off is damaged, not misread.
        var body = try CompactManifestEncoder.body(of: manifest)
        body.removeLast(body.count - 40)
        #expect(throws: ManifestFormatError.self) { try PackageManifest.decode(CompactManifestEncoder.envelope(body)) }
    }
}

/// Lowercase hex SHA-256 of some bytes, for records made to match changed frames.
enum SHA256Hex {
    static func of(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).lowercaseHex }
}
