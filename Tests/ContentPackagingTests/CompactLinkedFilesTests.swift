@testable import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The linked-file column of the compact format (flag bit 6): read back as written, absent from manifests without
/// links, and refused when damaged — a link to itself, past the last file, or to a file of other bytes.
@Suite("compact manifest, linked files")
struct CompactLinkedFilesTests {
    /// A manifest from `pack` of a product whose `fr` voices repeat two of `de`'s files.
    static func packed() throws -> PackageManifest {
        let directory = try TemporaryDirectory("compact-linked")
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: sharedVariantFiles(music: 64 << 10), extraKeys: sharedVariantKeys)
        return try LinkedFilePackTests.smallLinks.pack(folder: folder, outputDirectory: directory.appending("out")).manifest
    }

    /// The refusal decoding `data` throws, or a failed expectation.
    static func refusal(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) -> ManifestFormatError? {
        CompactManifestHostileTests.refusal(data, sourceLocation: sourceLocation)
    }

    @Test("links read back as written; a manifest without links carries no flag bit 6 and no column")
    func roundTrip() throws {
        let manifest = try Self.packed()
        #expect(manifest.linkedFiles?.count == 2)
        let body = try CompactManifestEncoder.body(of: manifest)
        #expect(try CompactManifestDecoder.decode(try CompactManifestEncoder.envelope(body)) == manifest)
        var plain = CompactManifestSamples.chunked([1, 2, 3])
        #expect(try CompactManifestDecoder.decode(try plain.compactEncoded()).linkedFiles == nil)
        plain.linkedFiles = nil
        let flags = try CompactManifestEncoder.body(of: plain)[1]
        #expect(flags & 0x40 == 0 && body[1] & 0x40 != 0)
    }

    @Test("cut short at every byte, or flipped at random: a refusal, or a manifest whose index and links are sound")
    func damaged() throws {
        let manifest = try Self.packed()
        let body = try CompactManifestEncoder.body(of: manifest)
        for count in 0..<body.count {
            #expect(Self.refusal(try CompactManifestEncoder.envelope(Array(body[0..<count]))) != nil, "body cut at \(count)")
        }
        var random = SystemRandomNumberGenerator()
        for round in 0..<2000 {
            var bytes = body
            bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            do {
                let decoded = try CompactManifestDecoder.decode(try CompactManifestEncoder.envelope(bytes))
                #expect(decoded.chunkIndexProblems().isEmpty, "round \(round)")
            } catch {
                #expect(!error.description.isEmpty, "round \(round)")
            }
        }
    }

    @Test("a link to itself, past the last file, or to a file of other bytes is refused, naming the link or the file")
    func lyingLinks() throws {
        let manifest = try Self.packed()
        let body = try CompactManifestEncoder.body(of: manifest)
        // The first link's distance back to its source: where a body with another source differs.
        var moved = manifest
        moved.linkedFiles![0].source -= 1
        let other = try CompactManifestEncoder.body(of: moved)
        let back = try #require(body.indices.first { body[$0] != other[$0] })
        var itself = body
        itself[back] = 0
        let selfError = try #require(Self.refusal(try CompactManifestEncoder.envelope(itself)))
        #expect(selfError.field == "linked file 0's source" && selfError.description.contains("to itself"), "\(selfError)")
        var past = body
        past[back - 1] = 0x7F  // the first link's index far past the last file
        let pastError = try #require(Self.refusal(try CompactManifestEncoder.envelope(past)))
        #expect(pastError.field == "linked file 0's index", "\(pastError)")
        var otherBytes = body
        otherBytes[back] += 1  // an earlier source with other bytes
        let otherError = try #require(Self.refusal(try CompactManifestEncoder.envelope(otherBytes)))
        #expect(otherError.field == "chunk index" && otherError.description.contains("Contents/Voices#language=fr/credits.txt"), "\(otherError)")
        var unknown = body
        unknown[1] |= 0x80
        let flagError = try #require(Self.refusal(try CompactManifestEncoder.envelope(unknown)))
        #expect(flagError.description.contains("update iapcontent"), "\(flagError)")
    }

    @Test("the encoder refuses a link that is not to an earlier file")
    func encoderRefusesBadLinks() throws {
        var manifest = try Self.packed()
        manifest.linkedFiles![0].source = manifest.linkedFiles![0].file
        #expect(throws: ManifestFormatError.self) { try manifest.compactEncoded() }
    }
}
