@testable import ContentPackaging
import Foundation
import Testing

/// The compact decoder reads what a hostile mirror or a damaged disk may hand it: it never crashes, never
/// allocates for records the input cannot hold, and either refuses with the field and byte offset or
/// returns a manifest whose chunk index is sound.
@Suite("compact manifest, hostile input")
struct CompactManifestHostileTests {
    private static let manifest = CompactManifestSamples.chunked((0..<12).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 })

    /// `body` in a valid envelope.
    private static func wrapped(_ body: [UInt8]) throws -> Data { try CompactManifestEncoder.envelope(body) }

    /// The refusal decoding `data` throws, or a failed expectation.
    static func refusal(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) -> ManifestFormatError? {
        do {
            _ = try CompactManifestDecoder.decode(data)
            Issue.record("decoded bytes that should have been refused", sourceLocation: sourceLocation)
        } catch {
            return error
        }
        return nil
    }

    @Test("cut short at every byte: always a refusal naming a field")
    func truncatedEverywhere() throws {
        let data = try Self.manifest.compactEncoded()
        for count in 0..<data.count {
            let error = Self.refusal(data.prefix(count))
            #expect(error.map { !$0.field.isEmpty && $0.description.contains("byte") } == true, "cut at \(count)")
        }
        let body = try CompactManifestEncoder.body(of: Self.manifest)
        for count in 0..<body.count {
            #expect(Self.refusal(try Self.wrapped(Array(body[0..<count]))) != nil, "body cut at \(count)")
        }
    }

    @Test("random byte flips in the file or the body: a refusal, or a manifest whose index is sound")
    func byteFlips() throws {
        let data = try Self.manifest.compactEncoded()
        let body = try CompactManifestEncoder.body(of: Self.manifest)
        var random = SystemRandomNumberGenerator()
        for round in 0..<3000 {
            let inBody = round % 2 == 1
            var bytes = inBody ? body : Array(data)
            for _ in 0..<(1 + round % 3) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
            do {
                let decoded = try CompactManifestDecoder.decode(inBody ? try Self.wrapped(bytes) : Data(bytes))
                #expect(decoded.chunkIndexProblems().isEmpty, "round \(round)")
            } catch {
                #expect(error is ManifestFormatError && !"\(error)".isEmpty)
            }
        }
    }

    @Test("a count larger than the bytes left is refused before anything is allocated")
    func oversizedCounts() throws {
        let body = try CompactManifestEncoder.body(of: Self.manifest)
        let countsOffset = try Self.countsOffset()
        var end = countsOffset
        while body[end] & 0x80 != 0 { end += 1 }
        let hostile = Array(body[0..<countsOffset]) + Self.varint(1 << 40) + body[(end + 1)...]
        let error = try #require(Self.refusal(try Self.wrapped(hostile)))
        #expect(error.field == "file count" && error.offset == countsOffset && error.inBody, "\(error)")
        #expect(error.description.contains("more than"))
    }

    @Test("a varint past 64 bits is refused as an overflow")
    func varintOverflow() throws {
        let body: [UInt8] = Array(repeating: 0xFF, count: 10) + [0x01]
        let error = try #require(Self.refusal(try Self.wrapped(body)))
        #expect(error.field == "schema" && error.description.contains("64 bits"), "\(error)")
        let largest: [UInt8] = Array(repeating: 0xFF, count: 9) + [0x01]  // 2^64 - 1 still reads
        let value = largest.withUnsafeBytes { raw in
            var reader = ManifestBodyReader(raw)
            return try? reader.varint("largest")
        }
        #expect(value == UInt64.max)
    }

    @Test("paths that break the path rules or the order are refused, naming the file")
    func badPaths() throws {
        for (path, words) in [("Contents/../x", "'..'"), ("/Contents/x", "absolute"), ("Contents/a\\b", "'\\'"), ("Contents//x", "'//'")] {
            var manifest = CompactManifestSamples.oneFrame([1])
            manifest.files[0].path = path
            let error = try #require(Self.refusal(try manifest.compactEncoded()), "\(path)")
            #expect(error.field == "file 0's path" && error.description.contains(words), "\(error)")
        }
        var unsorted = CompactManifestSamples.oneFrame([1, 2, 3])
        unsorted.files.swapAt(0, 2)
        #expect(throws: ManifestFormatError.self) { try unsorted.compactEncoded() }
    }

    @Test("a body past the limit, or a frame that decodes past its declared length, is refused")
    func zstdBombs() throws {
        let head: [UInt8] = CompactManifestFormat.magic + [CompactManifestFormat.version, CompactManifestFormat.zstdCompression]
            + Self.varint(UInt64(PackageManifest.largestCompactBody + 1))
        let tooLong = try #require(Self.refusal(Data(head)))
        #expect(tooLong.field == "body length" && !tooLong.inBody && tooLong.description.contains("\(PackageManifest.largestCompactBody)"), "\(tooLong)")

        // A megabyte of zeros in a valid frame, declared as 100 bytes.
        let zeros = try Self.wrapped(Array(repeating: 0, count: 1 << 20))
        let bomb = try Self.redeclared(zeros, length: 100)
        let error = try #require(Self.refusal(bomb))
        #expect(error.field == "body", "\(error)")
    }

    @Test("a version or compression this reader does not know is refused, saying to update")
    func unknownVersion() throws {
        var data = Array(try Self.manifest.compactEncoded())
        data[8] = 2
        let error = try #require(Self.refusal(Data(data)))
        #expect(error.field == "format version" && error.offset == 8 && error.description.contains("update iapcontent"), "\(error)")
    }

    @Test("a data offset that puts a file before the tar stream or past 2^63 is refused, naming the file")
    func lyingDataOffsets() throws {
        var body = try CompactManifestEncoder.body(of: Self.manifest)
        // The first data offset follows the paths and the sizes; find it by encoding a manifest with one different offset.
        var moved = Self.manifest
        moved.files[0].dataOffset! += 1
        let other = try CompactManifestEncoder.body(of: moved)
        let at = try #require(body.indices.first { body[$0] != other[$0] })
        body.replaceSubrange(at..<(at + 2), with: Self.varint(zigzag: -1_000_000))  // 512 is two varint bytes
        let error = try #require(Self.refusal(try Self.wrapped(body)))
        #expect(error.field == "file 0's data offset" && error.offset == at, "\(error)")
    }

    @Test("chunk lengths that do not add up to the archive are refused as an unsound index")
    func lyingLengths() throws {
        var manifest = Self.manifest
        manifest.archiveSize += 1
        let error = try #require(Self.refusal(try manifest.compactEncoded()))
        #expect(error.field == "chunk index" && error.description.contains("archive has"), "\(error)")
    }

    /// Where the record counts start in the body of ``manifest``: after a header that is the same without
    /// the lists (three zero counts end it then).
    private static func countsOffset() throws -> Int {
        var header = Self.manifest
        header.files = []
        header.directories = []
        header.chunks = []
        return try CompactManifestEncoder.body(of: header).count - 3
    }

    /// `value` zigzag-coded as a varint, of the same length as the encoder's.
    private static func varint(zigzag value: Int64) -> [UInt8] {
        var writer = ManifestBodyWriter(reserving: 10)
        writer.signed(value)
        return writer.bytes
    }

    /// `value` as an unsigned LEB128 varint.
    private static func varint(_ value: UInt64) -> [UInt8] {
        var writer = ManifestBodyWriter(reserving: 10)
        writer.varint(value)
        return writer.bytes
    }

    /// `data` with its envelope's body length replaced by `length`.
    private static func redeclared(_ data: Data, length: Int) throws -> Data {
        let bytes = Array(data)
        var position = CompactManifestFormat.magic.count + 2
        while bytes[position] & 0x80 != 0 { position += 1 }
        return Data(Array(bytes[0..<(CompactManifestFormat.magic.count + 2)]) + varint(UInt64(length)) + bytes[(position + 1)...])
    }
}
