import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A manifest past the size a client reads fails the download, naming the limit, instead of quietly
/// downloading the whole archive.
@Suite struct ManifestLimitTests {
    @Test func aManifestLargerThanAClientReadsFailsTheDownloadNamingTheLimit() async throws {
        let fixture = try QueueFixture()
        let v1 = try fixture.source("com.example.maps", version: "1.0", size: 1 << 20)
        let catalog = try fixture.publish([v1], chunked: true)
        let reference = try #require(catalog.product("com.example.maps")?.manifest)
        #expect(reference.path.hasSuffix(".manifest"))
        let catalogFile = fixture.nginx.root.appendingPathComponent("catalog.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: catalogFile)) as? [String: Any])
        var products = try #require(json["products"] as? [[String: Any]])
        products[0]["manifest"] = ["path": reference.path, "length": PackageManifest.largestCompactManifest + 1, "sha256": reference.sha256]
        json["products"] = products
        try JSONSerialization.data(withJSONObject: json).write(to: catalogFile)

        let store = fixture.root.appendingPathComponent("cli-store")
        let download = try await iapcontentOffPool(["download", "com.example.maps", "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(download.status != 0)
        #expect(download.output.contains("PackageManifest.largestCompactManifest"), "\(download.output)")
        #expect(try Store(root: store).contentURL(forProductID: "com.example.maps") == nil)
    }

    @Test func aJSONManifestPastTheCatalogLimitIsRefusedAndACompactOneOfThatSizeIsNot() throws {
        let product = CatalogProduct(
            productID: "p", contentVersion: ContentVersion("1.0")!, path: "a", url: nil, length: 1, sha256: "", uncompressedSize: 1,
            entryCount: 1)
        let big = CatalogSource.maxCatalogBytes + 1
        #expect(throws: DownloadError.self) { try ManifestFetch.checkManifestSize(big, of: product, json: true) }
        try ManifestFetch.checkManifestSize(big, of: product)
        let error = #expect(throws: DownloadError.self) {
            try ManifestFetch.checkManifestSize(PackageManifest.largestCompactManifest + 1, of: product)
        }
        #expect(error?.message.contains("\(PackageManifest.largestCompactManifest) bytes") == true)
    }
}
