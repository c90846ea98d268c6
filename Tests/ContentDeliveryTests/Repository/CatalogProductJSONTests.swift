@testable import ContentDelivery
import ContentPackaging
import Foundation
import PropertyBased
import Testing

/// An archive target's `custom` carries the catalog entry as `catalog.json` writes it: the entry built field by
/// field (``CatalogProduct/jsonValue``) is what the catalog's encoder writes, parsed, for every shape of entry.
@Suite("Repository: a catalog entry as metadata")
struct CatalogProductJSONTests {
    static let text = Gen.element(of: Array("aZ/\"\\é🙂\t .0".map { String($0) })).array(of: 0...6).map { $0.compactMap { $0 }.joined() }
    static let version = Gen.int(in: 0...40).array(of: 1...3).map { ContentVersion($0.map(String.init).joined(separator: "."))! }

    static let products = PropertyBased.zip(
        PropertyBased.zip(text, text, version, Gen.int64(in: 0...Int64.max), Gen.int(in: 0...Int.max)),
        PropertyBased.zip(Gen.bool, Gen.bool, Gen.int(in: 0...3), text, Gen.int64(in: 0...Int64.max))
    ).map { first, second in
        let (id, path, version, length, count) = first
        let (hasURL, hasManifest, patches, hash, size) = second
        var product = CatalogProduct(
            productID: id, contentVersion: version, path: path, url: hasURL ? "https://\(id)/\(path)" : nil, length: length,
            sha256: hash, uncompressedSize: size, entryCount: count, format: path.isEmpty ? "tar.zst" : path)
        if hasManifest { product.manifest = ManifestReference(path: path + ".manifest", length: length / 3, sha256: hash + "m") }
        if patches > 0 {
            product.patches = (0..<patches - 1).map {
                PatchReference(fromVersion: version, fromManifestSHA256: "\(hash)\($0)", path: "\(path)/\($0)", length: Int64($0), sha256: id)
            }
        }
        return product
    }

    @Test func everyEntryIsWhatTheCatalogEncoderWrites() async {
        await propertyCheck(input: Self.products) { product in
            let encoded = try? JSONParser.parse(Array(Catalog.encoder.encode(product)))
            #expect(product.jsonValue == encoded)
        }
    }

    /// A field added to `CatalogProduct` and set must show up here too, or the check above only sees the old ones.
    @Test func everyStoredFieldIsWritten() throws {
        var product = CatalogProduct(
            productID: "p", contentVersion: ContentVersion("1")!, path: "a", url: "u", length: 1, sha256: "s",
            uncompressedSize: 2, entryCount: 3)
        product.manifest = ManifestReference(path: "m", length: 4, sha256: "t")
        product.patches = []
        let fields = Mirror(reflecting: product).children.compactMap(\.label)
        let written = try #require(product.jsonValue.objectValue)
        #expect(Set(written.keys) == Set(fields))
    }
}
