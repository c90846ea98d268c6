@testable import ContentPackaging
import PropertyBased
import Testing

/// Encoding a manifest in the compact format and decoding it gives it back, field for field.
@Suite("compact manifest round trip")
struct CompactManifestPropertyTests {
    private static let seeds = Gen.uint64().array(of: 0...60)

    /// `manifest` encoded compactly and decoded; `nil` when either step threw or the bytes lack the magic.
    private static func roundTrip(_ manifest: PackageManifest) -> PackageManifest? {
        guard let data = try? manifest.compactEncoded(), PackageManifest.isCompact(data) else { return nil }
        return try? PackageManifest.decode(data)
    }

    @Test("a chunk-indexed manifest decodes to itself")
    func chunkedRoundTrip() async {
        await propertyCheck(input: Self.seeds) { seeds in
            let manifest = CompactManifestSamples.chunked(seeds)
            #expect(manifest.chunkIndexProblems().isEmpty)
            #expect(Self.roundTrip(manifest) == manifest)
        }
    }

    @Test("a one-frame manifest decodes to itself")
    func oneFrameRoundTrip() async {
        await propertyCheck(input: Self.seeds) { seeds in
            let manifest = CompactManifestSamples.oneFrame(seeds)
            #expect(Self.roundTrip(manifest) == manifest)
        }
    }

    @Test("the same manifest always gives the same bytes")
    func deterministic() async {
        await propertyCheck(input: Self.seeds) { seeds in
            let manifest = CompactManifestSamples.chunked(seeds)
            #expect((try? manifest.compactEncoded()) == (try? manifest.compactEncoded()))
        }
    }
}
