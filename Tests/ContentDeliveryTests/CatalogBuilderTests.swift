import ContentDelivery
import ContentPackaging
import Foundation
import SystemSupport
import Testing

@Suite struct CatalogBuilderTests {
    @Test func writesContentAddressedLayoutSortedByProduct() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let zeta = try fixture.addArchive("com.example.zeta", "2.0", entryCount: 5, uncompressedSize: 900)
        let alpha = try fixture.addArchive("com.example.alpha", "1")

        let result = try fixture.builder().build()

        let data = try Data(contentsOf: fixture.output.appendingPathComponent("catalog.json"))
        #expect(data == result.catalogData)
        let catalog = try Catalog.load(from: data)
        #expect(catalog == result.catalog)
        #expect(catalog.products.map(\.productID) == ["com.example.alpha", "com.example.zeta"])
        #expect(catalog.catalogVersion == 7)
        #expect(catalog.issuedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(catalog.expires == nil)
        for (product, source) in zip(catalog.products, [alpha, zeta]) {
            let sha = DeliveryFixture.sha256(source.bytes)
            #expect(product.sha256 == sha)
            #expect(product.length == Int64(source.bytes.count))
            #expect(product.path == "archives/\(sha).tar.zst")
            #expect(product.url == nil)
            #expect(product.format == "tar.zst")
            let published = try Data(contentsOf: fixture.output.appendingPathComponent(product.path))
            #expect(published == source.bytes)
        }
        #expect(catalog.products[1].entryCount == 5)
        #expect(catalog.products[1].uncompressedSize == 900)
        #expect(catalog.products[1].contentVersion.description == "2.0")
        // Unsigned build: no signature file, and nothing but the two archives in archives/.
        #expect(!FileManager.default.fileExists(atPath: fixture.output.appendingPathComponent("catalog.json.sig").path))
        let archives = try FileManager.default.contentsOfDirectory(
            atPath: fixture.output.appendingPathComponent("archives").path)
        #expect(archives.count == 2)
        // JSON shape: sorted keys, unescaped slashes, ISO-8601 dates.
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"path\" : \"archives/"))
        #expect(text.contains("\"issuedAt\" : \"2027-01-15T08:00:00Z\""))
        #expect(text.hasSuffix("}\n"))
    }

    @Test func outputIsDeterministic() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.addArchive("b.product", "1.0", bytes: Data(repeating: 1, count: 3000))
        try fixture.addArchive("a.product", "3", bytes: Data(repeating: 2, count: 10))
        let first = try fixture.builder(output: fixture.root.appendingPathComponent("one")).build()
        let second = try fixture.builder(output: fixture.root.appendingPathComponent("two")).build()
        #expect(first.catalogData == second.catalogData)
        let onDisk = try Data(contentsOf: fixture.root.appendingPathComponent("two/catalog.json"))
        #expect(onDisk == first.catalogData)
    }

    @Test func rebuildingSameInputLeavesNoTempFiles() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.addArchive("p", "1")
        _ = try fixture.builder(version: 1).build()
        _ = try fixture.builder(version: 2).build()
        let names = try FileManager.default.contentsOfDirectory(
            atPath: fixture.output.appendingPathComponent("archives").path)
        #expect(names.count == 1)
        #expect(names.allSatisfy { !$0.hasPrefix(".") })
    }

    @Test func archiveNotMatchingManifestIsRefusedByName() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let wrong = String(repeating: "0", count: 64)
        let (archive, bytes) = try fixture.addArchive("com.example.bad", "1", manifestSHA: wrong)
        do {
            _ = try fixture.builder().build()
            Issue.record("expected a mismatch error")
        } catch {
            #expect(
                error == .manifestMismatch(
                    archive: archive.path, field: "sha256", manifest: wrong, actual: DeliveryFixture.sha256(bytes)))
            #expect(error.description.contains(archive.path))
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.output.appendingPathComponent("catalog.json").path))
        let leftovers = (try? FileManager.default.contentsOfDirectory(
            atPath: fixture.output.appendingPathComponent("archives").path)) ?? []
        #expect(leftovers.isEmpty)
    }

    @Test func lengthMismatchIsRefused() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let (archive, bytes) = try fixture.addArchive("p", "1", manifestSize: 5)
        #expect(throws: CatalogBuildError.manifestMismatch(
            archive: archive.path, field: "length", manifest: "5", actual: "\(bytes.count)"))
        {
            try fixture.builder().build()
        }
    }

    @Test func missingManifestIsNamed() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let (archive, _) = try fixture.addArchive("p", "1")
        let manifest = fixture.input.appendingPathComponent("p-1.manifest.json")
        try FileManager.default.removeItem(at: manifest)
        // Neither encoding is there: the error names the compact manifest `pack` writes for a chunk-indexed archive.
        let expected = fixture.input.appendingPathComponent("p-1.manifest")
        #expect(throws: CatalogBuildError.missingManifest(archive: archive.path, expected: expected.path)) {
            try fixture.builder().build()
        }
    }

    @Test func highestVersionWins() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.addArchive("p", "1.9")
        let (_, newest) = try fixture.addArchive("p", "1.10")
        try fixture.addArchive("p", "1.2")
        try fixture.addArchive("q", "1")
        let result = try fixture.builder().build()
        #expect(result.catalog.products.count == 2)
        let p = try #require(result.catalog.product("p"))
        #expect(p.contentVersion.description == "1.10")
        #expect(p.sha256 == DeliveryFixture.sha256(newest))
        #expect(Set(result.superseded.map(\.skipped.description)) == ["1.9", "1.2"])
        #expect(result.superseded.allSatisfy { $0.kept.description == "1.10" && $0.productID == "p" })
    }

    @Test func numericallyEqualVersionsAreAmbiguous() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.addArchive("p", "1")
        try fixture.addArchive("p", "1.0")
        #expect(throws: CatalogBuildError.self) { try fixture.builder().build() }
    }

    @Test func baseURLGivesAbsoluteURLs() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.addArchive("p", "1")
        let result = try fixture.builder(baseURL: "https://cdn.example.com/content/").build()
        let product = try #require(result.catalog.products.first)
        #expect(product.url == "https://cdn.example.com/content/\(product.path)")
    }

    @Test func catalogVersionMovesForward() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.addArchive("p", "1")
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let first = try fixture.builder(version: nil, now: now).build()
        #expect(first.catalog.catalogVersion == 1_900_000_000)
        let second = try fixture.builder(version: nil, now: now).build()
        #expect(second.catalog.catalogVersion == 1_900_000_001)
        #expect(throws: CatalogBuildError.catalogVersionNotIncreasing(requested: 5, previous: 1_900_000_001)) {
            try fixture.builder(version: 5).build()
        }
        let explicit = try fixture.builder(version: 2_000_000_000).build()
        #expect(explicit.catalog.catalogVersion == 2_000_000_000)
    }

    @Test func archiveURLsAreOrderedCandidates() throws {
        let catalogURL = URL(string: "https://origin.example.com/store/catalog.json")!
        var product = CatalogProduct(
            productID: "p", contentVersion: ContentVersion("1")!, path: "archives/abc.tar.zst", length: 1,
            sha256: "abc", uncompressedSize: 1, entryCount: 1)
        #expect(product.archiveURLs(catalogURL: catalogURL).map(\.absoluteString)
            == ["https://origin.example.com/store/archives/abc.tar.zst"])
        let mirrors = ["https://m1.example.com/x", "https://m2.example.com/y/"]
        #expect(product.archiveURLs(catalogURL: catalogURL, baseURLs: mirrors).map(\.absoluteString) == [
            "https://m1.example.com/x/archives/abc.tar.zst",
            "https://m2.example.com/y/archives/abc.tar.zst",
            "https://origin.example.com/store/archives/abc.tar.zst",
        ])
        product.url = "https://pinned.example.com/a.tar.zst"
        let catalog = Catalog(baseURLs: mirrors, products: [product])
        let urls = catalog.archiveURLs(for: product, catalogURL: catalogURL).map(\.absoluteString)
        #expect(urls.first == "https://pinned.example.com/a.tar.zst")
        #expect(urls.count == 4)
    }
}

@Suite struct CatalogBuilderFailureTests {
    @Test func missingInputFolderNamesPathAndErrno() throws {
        let builder = CatalogBuilder(
            inputDirectory: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"),
            outputDirectory: FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString))
        do {
            _ = try builder.build()
            Issue.record("built from a missing folder")
        } catch {
            guard case .fileSystem(let failure) = error else { Issue.record("got \(error)"); return }
            #expect(failure.errno == ENOENT)
            #expect(failure.description.contains(builder.inputDirectory.path))
        }
    }

    @Test func emptyInputFolderSaysRunPack() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        #expect(throws: CatalogBuildError.noArchives(directory: fixture.input.path)) { try fixture.builder().build() }
    }
}
