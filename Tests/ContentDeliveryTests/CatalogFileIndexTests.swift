@testable import ContentDelivery
import ContentPackaging
import Foundation
import PropertyBased
import Testing

/// `catalog.json` read entry by entry (what `repo add` does with a million products): the same catalog as
/// `Catalog.load` for any catalog, in any key order and layout; a hostile file refused with the byte offset or entry
/// at fault.
@Suite("Catalog: reading catalog.json entry by entry")
struct CatalogFileIndexTests {
    @Test func anyCatalogReadsAsCatalogLoadReadsIt() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        await propertyCheck(input: Gen.int64(in: 0...Int64.max).array(of: 0...40)) { numbers in
            var source = CanonicalJSONTests.ValueSource(numbers: numbers)
            let catalog = Self.catalog(&source)
            for (layout, bytes) in Self.layouts(of: catalog) {
                let url = folder.appendingPathComponent("catalog-\(layout).json")
                try? bytes.write(to: url)
                guard let index = try? CatalogFileIndex(path: url.path) else {
                    Issue.record("\(layout): not indexed: \(String(decoding: bytes, as: UTF8.self))")
                    return
                }
                var header = catalog
                header.products = []
                #expect(index.header == header, "\(layout)")
                guard index.entries.count == catalog.products.count else {
                    Issue.record("\(layout): \(index.entries.count) entries for \(catalog.products.count) products")
                    return
                }
                let decoder = Catalog.decoder
                #expect((try? index.products(0..<catalog.products.count, decoder: decoder)) == catalog.products, "\(layout)")
                let some = Array((0..<catalog.products.count).filter { $0 % 2 == 1 }.reversed())
                #expect((try? index.products(at: some, decoder: decoder)) == some.map { catalog.products[$0] }, "\(layout)")
                for (position, product) in catalog.products.enumerated() {
                    #expect((try? index.product(position, decoder: decoder)) == product, "\(layout) products[\(position)]")
                }
            }
        }
    }

    /// Each hostile file, and a part of the error it must give.
    static let hostile: [(String, String)] = [
        ("", "ends at byte 0 before the top-level object closes"),
        ("[]", "not a JSON object at byte 0"),
        (#"{"schema":1,"catalogVersion":1,"baseURLs":[]}"#, "missing key products"),
        (#"{"products":{}}"#, "products is not a list at byte 12"),
        (#"{"products":[1]}"#, "products[0] is not an object at byte 13"),
        (#"{"products":[{},"x"]}"#, "products[1] is not an object at byte 16"),
        (#"{"products":[{"productID":"a""#, "ends at byte 29 before the top-level object closes"),
        (#"{"products":[{"productID":"a\"}]}"#, "ends at byte 33"),
        (#"{"products":[]} x"#, "bytes outside the top-level object at byte 16"),
        (#"{"products":[]}}"#, "an unbalanced } at byte 15"),
        (#"{"products":[]]"#, "the top-level object closes with ] at byte 14"),
        (#"{"products":[],"products":[]}"#, "a second key products at byte 26"),
        (#"{"a":1:2,"products":[]}"#, "a colon without a key at byte 6"),
        (#"{"products":[]} {"#, "bytes after the top-level object at byte 16"),
        ("{\"x\":" + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + #","products":[]}"#,
         "nesting deeper than 64 at byte 68"),
        (#"{"x":""# + String(repeating: "a", count: 1 << 20) + #"","products":[]}"#, "the value of key x is over 1048576 bytes"),
        (#"{"schema":99,"catalogVersion":1,"baseURLs":[],"products":[]}"#, "schema 99 is newer than this client understands"),
        (#"{"schema":1,"catalogVersion":"one","baseURLs":[],"products":[]}"#, "catalogVersion"),
    ]

    @Test(arguments: 0..<hostile.count) func aHostileFileIsRefusedWithWhereItIsWrong(_ number: Int) throws {
        let (text, expected) = Self.hostile[number]
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("catalog.json")
        try Data(text.utf8).write(to: url)
        do {
            _ = try CatalogFileIndex(path: url.path)
            Issue.record("case \(number) was accepted")
        } catch {
            #expect(error.description.contains(expected), "case \(number): \(error.description)")
            #expect(error.description.contains(url.path) || expected.contains("schema") || expected.contains("catalogVersion"))
        }
    }

    /// A FIFO or a folder where `catalog.json` should be is refused at once, never waited on.
    @Test func aCatalogThatIsNotARegularFileIsRefusedWithoutWaiting() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo.json")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let directory = folder.appendingPathComponent("folder.json")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for path in [fifo.path, directory.path] {
            #expect {
                _ = try CatalogFileIndex(path: path)
            } throws: { error in
                (error as? CatalogVerificationError)?.description.contains("is not a regular file") ?? false
            }
        }
    }

    @Test func anEntryThatDoesNotDecodeIsNamedWithItsByteOffset() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var catalog = Catalog(products: [Self.product("com.example.a"), Self.product("com.example.b")])
        catalog.products[1].sha256 = "x"
        var text = String(decoding: try catalog.encoded(), as: UTF8.self)
        text = text.replacingOccurrences(of: #""sha256" : "x","#, with: "")
        let url = folder.appendingPathComponent("catalog.json")
        try Data(text.utf8).write(to: url)
        let index = try CatalogFileIndex(path: url.path)
        let offset = index.entries[1].offset
        #expect(Array(Data(text.utf8))[Int(offset)] == UInt8(ascii: "{"))
        #expect(throws: CatalogVerificationError.self) { try index.products(0..<2, decoder: Catalog.decoder) }
        do {
            _ = try index.products(at: [0, 1], decoder: Catalog.decoder)
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("products[1] (byte \(offset)): missing key sha256"), "\(error.description)")
        }
    }

    @Test func aFileThatShrankAfterItWasIndexedIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = Catalog(products: [Self.product("com.example.a"), Self.product("com.example.b")])
        let url = folder.appendingPathComponent("catalog.json")
        try catalog.encoded().write(to: url)
        let index = try CatalogFileIndex(path: url.path)
        try Data("{}".utf8).write(to: url)
        #expect(throws: CatalogVerificationError.self) { try index.product(1, decoder: Catalog.decoder) }
    }

    // MARK: Helpers

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("iapcontent-catalog-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func product(_ id: String, version: String = "1.0") -> CatalogProduct {
        CatalogProduct(
            productID: id, contentVersion: ContentVersion(version)!, path: "archives/\(id).tar.zst", length: 10,
            sha256: String(repeating: "a", count: 64), uncompressedSize: 20, entryCount: 2)
    }

    /// A catalog whose strings hold quotes, backslashes, braces and brackets (what a structure scan must step over).
    static func catalog(_ source: inout CanonicalJSONTests.ValueSource) -> Catalog {
        let tricky = ["\"", "\\", "{", "}", "[", "]", ",", ":", "é", "🙂", "\\\"", " "]
        func text() -> String { (0..<Int(source.next().magnitude % 4)).map { _ in tricky[Int(source.next().magnitude % 12)] }.joined() }
        let count = Int(source.next().magnitude % 6)
        let products = (0..<count).map { position in
            var product = product("com.example.\(position)\(text())")
            product.url = source.next() % 2 == 0 ? nil : "https://cdn.example.net/\(text())"
            return product
        }
        return Catalog(
            catalogVersion: UInt64(source.next().magnitude % 1000), baseURLs: (0..<Int(source.next().magnitude % 3)).map { _ in text() },
            products: products)
    }

    /// The catalog as `iapcontent catalog` writes it, as compact JSON, and with `products` first.
    static func layouts(of catalog: Catalog) -> [(String, Data)] {
        let written = try! catalog.encoded()
        let compactEncoder = Catalog.encoder
        compactEncoder.outputFormatting = [.withoutEscapingSlashes]
        let compact = try! compactEncoder.encode(catalog)
        var header = catalog
        header.products = []
        let headerText = String(decoding: try! compactEncoder.encode(header), as: UTF8.self)
        let productsText = String(decoding: try! compactEncoder.encode(catalog.products), as: UTF8.self)
        let productsFirst = "{ \"products\" :\n" + productsText + " ,\n" + headerText.dropFirst().replacingOccurrences(of: "\"products\":[],", with: "")
            .replacingOccurrences(of: ",\"products\":[]", with: "")
        return [("written", written), ("compact", compact), ("products-first", Data(productsFirst.utf8))]
    }
}
