import Foundation
import Testing

@testable import ContentPackaging

/// The compact manifest made and compressed in pieces, as `pack` writes it: the same bytes as the body made whole
/// and compressed in one call, handed on in pieces no larger than the compressor's buffer.
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
}
