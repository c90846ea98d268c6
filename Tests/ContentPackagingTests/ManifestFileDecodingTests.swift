@testable import ContentPackaging
import Foundation
import Testing

/// `PackageManifest.decode(contentsOfFile:)` — what planning, the scheduler and `verify` read a kept manifest with —
/// gives what `decode(_:)` gives for the same bytes, in both encodings, and refuses what it refuses.
@Suite("manifest decoded from a file")
struct ManifestFileDecodingTests {
    /// `data` written to a new file; the path.
    private static func file(_ data: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("the compact and the JSON encoding decode from a file as from their bytes")
    func sameAsFromBytes() throws {
        let chunked = CompactManifestSamples.chunked((0..<40).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 })
        let oneFrame = CompactManifestSamples.oneFrame((0..<5).map { UInt64($0) + 7 })
        for data in [try chunked.compactEncoded(), try oneFrame.encoded()] {
            let path = try Self.file(data)
            defer { unlink(path) }
            let fromFile = try PackageManifest.decode(contentsOfFile: path)
            #expect(fromFile == (try PackageManifest.decode(data)))
        }
        let path = try Self.file(chunked.compactEncoded())
        defer { unlink(path) }
        #expect(try PackageManifest.decode(contentsOfFile: path) == chunked)
    }

    @Test("a damaged compact file is refused with the field, as from its bytes; a missing file is an error")
    func refusals() throws {
        let data = try CompactManifestSamples.chunked([1, 2, 3]).compactEncoded()
        for count in [CompactManifestFormat.magic.count + 1, data.count / 2, data.count - 1] {
            let path = try Self.file(data.prefix(count))
            defer { unlink(path) }
            #expect(throws: ManifestFormatError.self) { try PackageManifest.decode(contentsOfFile: path) }
        }
        #expect(throws: (any Error).self) { try PackageManifest.decode(contentsOfFile: "/nonexistent/x.manifest") }
    }
}
