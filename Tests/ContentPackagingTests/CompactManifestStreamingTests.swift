import Foundation
import Glibc
import Testing

@testable import ContentPackaging

/// The compact manifest made and compressed in pieces, as `pack` writes it — the same bytes as the body made whole
/// and compressed in one call, handed on in pieces no larger than the compressor's buffer — and read back a window
/// at a time, from memory or from its file, with every damage to the frame still refused.
@Suite("compact manifest written in pieces")
struct CompactManifestStreamingTests {
    /// A manifest whose body (about 1.4 MB) spans several hand-overs of the writer.
    private static let manifest = CompactManifestSamples.chunked((0..<30_000).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 })

    @Test("the pieces are the bytes of the whole body compressed at once, and decode to the manifest")
    func piecesMatchTheWholeBody() throws {
        let body = try CompactManifestEncoder.body(of: Self.manifest)
        #expect(body.count > 4 * ManifestBodyWriter.handOnSize, "the body (\(body.count) bytes) spans several pieces")
        var pieces: [Int] = []
        var streamed = Data()
        try CompactManifestEncoder.encode(Self.manifest) { piece in
            pieces.append(piece.count)
            streamed.append(contentsOf: piece)
        }
        let whole = try CompactManifestEncoder.envelope(body)
        #expect(streamed == whole)
        #expect(try Self.manifest.compactEncoded() == whole)
        #expect(try PackageManifest.decode(streamed) == Self.manifest)
        #expect(pieces.count > 2, "handed on in \(pieces.count) pieces")
        // libzstd's output buffer: a 128 KiB block at worst, and its framing.
        #expect(pieces.max()! <= 132 << 10, "the largest piece is \(pieces.max()!) bytes")
    }

    @Test("an error of the output stops the encoding and reaches the caller")
    func outputErrorsReachTheCaller() throws {
        struct Full: Error {}
        var handedOn = 0
        #expect(throws: Full.self) {
            try CompactManifestEncoder.encode(Self.manifest) { piece in
                handedOn += piece.count
                if handedOn > 100_000 { throw Full() }
            }
        }
        #expect(handedOn > 100_000 && handedOn < 400_000, "stopped after \(handedOn) bytes")
    }

    @Test("a format error found while counting is thrown before a byte is handed on")
    func formatErrorsComeFirst() throws {
        var manifest = Self.manifest
        manifest.files[manifest.files.count - 1].sha256 = "not a digest"
        var handedOn = 0
        #expect(throws: ManifestFormatError.self) {
            try CompactManifestEncoder.encode(manifest) { handedOn += $0.count }
        }
        #expect(handedOn == 0)
    }

    @Test("a body of many windows decodes from its file and from memory to the manifest")
    func decodesFromFileAndMemory() throws {
        let data = try Self.manifest.compactEncoded()
        let body = try CompactManifestEncoder.body(of: Self.manifest)
        #expect(try body.withUnsafeBytes { try CompactManifestDecoder.decodeBody($0) } == Self.manifest)
        #expect(try PackageManifest.decode(data) == Self.manifest)
        let file = try Self.file(data)
        #expect(try PackageManifest.decode(contentsOfFile: file) == Self.manifest)
    }

    @Test("a file cut short anywhere, or with bytes after its frame, is refused naming the body or the field")
    func damagedFilesAreRefused() throws {
        let data = try Self.manifest.compactEncoded()
        for cut in [9, 20, 100, data.count / 3, data.count / 2, data.count - 5, data.count - 1] {
            let error = Self.refusal(try Self.file(data.prefix(cut)))
            #expect(error != nil, "cut at \(cut) of \(data.count)")
        }
        let trailing = Self.refusal(try Self.file(data + Data([0, 1, 2])))
        #expect(trailing?.field == "body" && trailing?.description.contains("followed by 3 bytes") == true, "\(String(describing: trailing))")
    }

    @Test("a flipped byte in the frame is refused as damage to the frame (its checksum or its decoding), not as a body the packer wrote wrong")
    func flippedBytesAreRefused() throws {
        let data = try Self.manifest.compactEncoded()
        for offset in [data.count - 1, data.count - 3, data.count / 2, 40] {
            var damaged = data
            damaged[offset] ^= 0x20
            let error = Self.refusal(try Self.file(damaged))
            #expect(error?.field == "body" && error?.inBody == false, "byte \(offset) flipped: \(String(describing: error))")
        }
    }

    @Test("a frame that does not say how many bytes it holds is refused: the format requires its content size")
    func frameWithoutContentSizeIsRefused() throws {
        let body = try CompactManifestEncoder.body(of: Self.manifest)
        let compressed = try Self.frameWithoutContentSize(body)
        var head = ManifestBodyWriter(reserving: 24)
        head.raw(CompactManifestFormat.magic)
        head.byte(CompactManifestFormat.version)
        head.byte(CompactManifestFormat.zstdCompression)
        head.varint(UInt64(body.count))
        let error = Self.refusal(try Self.file(Data(head.bytes) + compressed))
        #expect(error?.field == "body" && error?.description.contains("does not say how many bytes") == true, "\(String(describing: error))")
    }

    /// `body` as a zstd frame without its content size, as `zstd` writes a stream of unknown length.
    private static func frameWithoutContentSize(_ body: [UInt8]) throws -> Data {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
        try Data(body).write(to: input)
        defer { unlink(input.path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "cat \"$0\" | zstd -q -c --no-content-size", input.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let frame = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0 && !frame.isEmpty, "zstd could not compress the body")
        return frame
    }

    @Test("a body that decodes to more or fewer bytes than the envelope declares is refused")
    func wrongDeclaredLengthIsRefused() throws {
        let body = try CompactManifestEncoder.body(of: Self.manifest)
        for declared in [body.count - 1, body.count + 1, body.count + 100_000] {
            var frame = try CompactManifestEncoder.envelope(body)
            frame = Self.redeclared(frame, length: declared)
            let error = Self.refusal(try Self.file(frame))
            #expect(error?.field == "body" && error?.inBody == false, "declared \(declared) of \(body.count): \(String(describing: error))")
        }
    }

    /// `data` written to a temporary file; its path.
    private static func file(_ data: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The refusal decoding the manifest file at `path` throws, or `nil` when it decodes.
    private static func refusal(_ path: String) -> ManifestFormatError? {
        defer { unlink(path) }
        do {
            _ = try PackageManifest.decode(contentsOfFile: path)
            return nil
        } catch {
            return error as? ManifestFormatError
        }
    }

    /// `data` with its envelope's body length replaced by `length` (the frame's own header still says the old one
    /// for lengths the frame header holds; either disagreement is refused).
    private static func redeclared(_ data: Data, length: Int) -> Data {
        let bytes = Array(data)
        var position = CompactManifestFormat.magic.count + 2
        while bytes[position] & 0x80 != 0 { position += 1 }
        var writer = ManifestBodyWriter(reserving: 10)
        writer.varint(UInt64(length))
        return Data(Array(bytes[0..<(CompactManifestFormat.magic.count + 2)]) + writer.bytes + bytes[(position + 1)...])
    }

    @Test("decoded beside a reference, a file's path shares the reference's bytes when the two paths are equal")
    func pathsShareTheReference() throws {
        var next = Self.manifest
        // The next version: every tenth file renamed, one added, one removed.
        for index in stride(from: 0, to: next.files.count, by: 10) { next.files[index].path += ".v2" }
        let last = next.files.removeLast()
        next.files.append(PackageManifest.File(path: "Contents/ünï/zz-new.bin", size: last.size, sha256: CompactManifestSamples.hex(1), dataOffset: last.dataOffset))
        next.files.sort { $0.storedPath.precedes($1.storedPath) }
        let reference = try PackageManifest.decode(next.compactEncoded()).files
        let file = try Self.file(Self.manifest.compactEncoded())
        defer { unlink(file) }
        let alone = try PackageManifest.decode(contentsOfFile: file)
        let beside = try PackageManifest.decode(contentsOfFile: file, sharingPathsWith: reference)
        #expect(beside == alone && beside == Self.manifest)
        let referenced = Dictionary(uniqueKeysWithValues: reference.map { ($0.storedPath, $0) })
        var shared = 0
        for file in beside.files {
            if let equal = referenced[file.storedPath] {
                #expect(file.storedPath.sharesBuffer(with: equal.storedPath), "\(file.path) is in the reference")
                shared += 1
            } else {
                #expect(!file.storedPath.sharesBuffer(with: reference[0].storedPath), "\(file.path) is not")
            }
        }
        #expect(shared > beside.files.count * 8 / 10, "\(shared) of \(beside.files.count) paths shared")
    }
}
