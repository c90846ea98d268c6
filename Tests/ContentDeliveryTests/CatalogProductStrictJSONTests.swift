@testable import ContentDelivery
import ContentPackaging
import Foundation
import PropertyBased
import Testing

/// `repo add` reads catalog entries from the parsed JSON when they are exactly what the catalog's decoder accepts,
/// and hands everything else to the decoder: on entries as the catalog writes them and on the same entries broken key
/// by key, the fast reading is the decoder's result or nothing, never a product the decoder would not make.
@Suite("Catalog: entries read without the decoder")
struct CatalogProductStrictJSONTests {
    static let keys = [
        "productID", "contentIdentifier", "contentVersion", "path", "url", "length", "sha256", "uncompressedSize",
        "entryCount", "format", "manifest", "patches",
    ]
    /// What can happen to one key: kept, removed, `null`, or another type (a string, an integer, a fraction, an
    /// object, a list, a version that is not one).
    static let damage: [JSONValue?] = [nil, .null, "x", 7, -1, ["path": "p"], [], "1.x", true]

    static let entries = PropertyBased.zip(
        CatalogProductJSONTests.products, Gen.int(in: 0...(keys.count * damage.count * 3))
    ).map { product, choice -> (CatalogProduct, JSONValue) in
        guard case .object(var members) = product.jsonValue else { return (product, product.jsonValue) }
        // About two in three entries have one key damaged (or, past the keys, a nested one), the rest none.
        let key = keys[choice % keys.count], kind = choice / keys.count
        if kind < damage.count {
            members[key] = damage[kind]
        } else if kind < 2 * damage.count, case .object(var manifest)? = members["manifest"] {
            manifest[["path", "length", "sha256"][choice % 3]] = damage[kind - damage.count]
            members["manifest"] = .object(manifest)
        }
        return (product, .object(members))
    }

    @Test func aFastReadingIsTheDecodersOrNone() async {
        await propertyCheck(input: Self.entries) { product, entry in
            let bytes = Data(entry.fileBytes)  // control characters escaped, as the encoder writes them
            let decoded = try? Catalog.decoder.decode(CatalogProduct.self, from: bytes)
            let fast = (try? JSONParser.parse(Array(bytes))).flatMap(CatalogProduct.init(strictJSON:))
            if let fast { #expect(fast == decoded, "\(String(decoding: bytes, as: UTF8.self))") }
            if entry == product.jsonValue { #expect(fast == product, "an entry as written is read fast") }
        }
    }

    @Test func unknownKeysAndNullOptionalsAreRead() throws {
        let bytes = Array(#"{"productID":"p","contentIdentifier":"p","contentVersion":"1.2","path":"a","length":3,"sha256":"s","uncompressedSize":4,"entryCount":5,"format":"tar.zst","url":null,"manifest":null,"later":{"x":[1]}}"#.utf8)
        let fast = try #require(CatalogProduct(strictJSON: try JSONParser.parse(bytes)))
        #expect(fast == (try Catalog.decoder.decode(CatalogProduct.self, from: Data(bytes))))
    }

    /// A key given twice, a fraction, a lone surrogate, a `null` where a value is required: the fast reading takes
    /// none of them, so the decoder decides each as it always did.
    @Test func hostileEntriesAreLeftToTheDecoder() {
        let base = #""productID":"p","contentIdentifier":"p","contentVersion":"1","path":"a","sha256":"s","uncompressedSize":4,"entryCount":5,"format":"tar.zst""#
        #expect((try? JSONParser.parse(Array("{\(base),\"length\":3}".utf8))).flatMap(CatalogProduct.init(strictJSON:)) != nil)
        for entry in [
            "{\(base),\"length\":3,\"length\":9}",
            "{\(base),\"length\":3.0}",
            "{\(base),\"length\":3,\"url\":\"\\ud800\"}",
            "{\(base),\"length\":null}",
            "{\(base),\"length\":3,\"manifest\":{\"path\":\"m\",\"length\":1}}",
        ] {
            let parsed = try? JSONParser.parse(Array(entry.utf8))
            #expect(parsed.flatMap(CatalogProduct.init(strictJSON:)) == nil, "\(entry)")
        }
    }
}
