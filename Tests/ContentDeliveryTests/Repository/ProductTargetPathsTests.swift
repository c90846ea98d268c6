@testable import ContentDelivery
import ContentPackaging
import Crypto
import PropertyBased
import Testing

/// `ProductTargetPaths`: a product's archive and manifest targets fall in one bin, found by the search its
/// documentation defines, which a second, naive implementation here (swift-crypto, plain lists) repeats exactly.
@Suite("product target paths")
struct ProductTargetPathsTests {
    static func bins(_ bitLength: Int) -> SuccinctRoles {
        SuccinctRoles(keys: RoleKeys(keyIDs: [], threshold: 1), bitLength: bitLength, namePrefix: "bins")
    }

    /// The search as documented: archive 0, manifest 0, archive 1, manifest 1, …, each new path checked against
    /// every earlier path of the other kind; the first agreeing pair.
    static func naiveSearch(_ productID: String, bitLength: Int) -> (Int, Int) {
        let bins = bins(bitLength)
        var archives: [Int] = [], manifests: [Int] = []
        for number in 0..<ProductTargetPaths.searchLimit {
            let archive = bins.binNumber(for: ProductTargetPaths.path(productID, number, ".tar.zst"))
            if let match = manifests.firstIndex(of: archive) { return (number, match) }
            archives.append(archive)
            let manifest = bins.binNumber(for: ProductTargetPaths.path(productID, number, ".manifest"))
            if let match = archives.firstIndex(of: manifest) { return (match, number) }
            manifests.append(manifest)
        }
        return (0, 0)
    }

    static let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz0123456789.-_".utf8)
    static let productIDs = Gen.element(of: alphabet).array(of: 1...90).map { String(decoding: $0.compactMap { $0 }, as: UTF8.self) }

    @Test func theArchiveAndTheManifestShareABinFoundByTheDocumentedSearch() async {
        await propertyCheck(count: 200, input: Self.productIDs, Gen.int(in: 1...16)) { productID, bitLength in
            guard !productID.isEmpty else { return }
            let paths = ProductTargetPaths(productID: productID, bitLength: bitLength)
            let bins = Self.bins(bitLength)
            #expect(bins.binNumber(for: paths.archive) == bins.binNumber(for: paths.manifest()), "\(productID) at \(bitLength) bits")
            let (archive, manifest) = Self.naiveSearch(productID, bitLength: bitLength)
            #expect(paths.archiveNumber == archive && paths.manifestNumber == manifest, "\(productID) at \(bitLength) bits")
            #expect(paths == ProductTargetPaths(productID: productID, bitLength: bitLength))
        }
    }

    @Test func withoutBinsThePathsArePlain() {
        let paths = ProductTargetPaths(productID: "com.example.maps", bitLength: 0)
        #expect(paths.archive == "com.example.maps/com.example.maps.tar.zst")
        #expect(paths.manifest() == "com.example.maps/com.example.maps.manifest")
        #expect(paths.manifest(json: true) == "com.example.maps/com.example.maps.manifest.json")
    }

    @Test func aNumberIsPartOfTheFileName() {
        let paths = ProductTargetPaths(productID: "com.example.maps", archiveNumber: 17, manifestNumber: 0)
        #expect(paths.archive == "com.example.maps/com.example.maps.17.tar.zst")
        #expect(paths.manifest() == "com.example.maps/com.example.maps.manifest")
        // At 2^14 bins the search takes some 230 hashes; its numbers stay small.
        let found = ProductTargetPaths(productID: "com.example.maps", bitLength: 14)
        #expect(max(found.archiveNumber, found.manifestNumber) < 2_000)
    }

    /// The leading word of the digest the search reads is swift-crypto's, on the SHA-extension path and the
    /// portable one, for lengths around the block and padding boundaries.
    @Test(arguments: [false] + (SHA256Stream.isAccelerated ? [true] : []))
    func theLeadingWordIsTheDigestsFirstFourBytes(accelerated: Bool) {
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 200] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var stream = SHA256Stream(accelerated: accelerated)
            bytes.withUnsafeBytes { stream.update($0) }
            let digest = Array(SHA256.hash(data: bytes))
            #expect(stream.finishLeadingWord() == digest.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }, "\(length) bytes")
        }
    }
}
