import ContentDelivery
import ContentDownloads
import Foundation
import Crypto
import Testing
import TestSupport

/// Clients read the signature named by the catalog's hash first, so a `catalog.json.sig` of another catalog
/// (mid-publish on object storage) does not fail them; hosts without `signatures/` keep working.
@Suite("Trust: signature by the catalog's hash", .serialized)
struct TrustSignatureByHashTests {
    @Test func signatureByHashWinsOverAStaleOne() throws {
        let site = try TrustSite()
        defer { site.stop() }
        let product = try site.addArchive("com.example.a", bytes: [1, 2, 3])
        let old = try site.publish(version: 1, products: [product], signer: site.key)
        let staleSignature = try Data(contentsOf: site.signatureFile)
        let new = try site.publish(version: 2, products: [product], signer: site.key)
        let hash = SHA256.hash(data: new).map { String(format: "%02x", $0) }.joined()
        let byHash = site.nginx.root.appendingPathComponent(Catalog.signaturePath(catalogSHA256: hash))
        try FileManager.default.createDirectory(at: byHash.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: site.signatureFile, to: byHash)
        try staleSignature.write(to: site.signatureFile)  // catalog.json.sig still signs the old catalog
        _ = old
        let store = try TemporaryDirectory("trust-by-hash")
        let source = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: Store(root: store.url))
        #expect(source.catalog.catalogVersion == 2)
        #expect(site.requests(for: "/" + Catalog.signaturePath(catalogSHA256: hash)).map(\.status) == [200])
        #expect(site.requests(for: "/catalog.json.sig").isEmpty)
    }

    @Test func hostsWithoutSignaturesFolderStillWork() throws {
        let site = try TrustSite()
        defer { site.stop() }
        let product = try site.addArchive("com.example.a", bytes: [1, 2, 3])
        try site.publish(version: 1, products: [product], signer: site.key)
        let store = try TemporaryDirectory("trust-by-hash")
        let source = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: Store(root: store.url))
        #expect(source.catalog.catalogVersion == 1)
        #expect(site.requests(for: "/catalog.json.sig").map(\.status) == [200])
    }

    @Test func signatureURLKeepsTheCatalogsFolderAndQuery() {
        let url = CatalogSource.signatureURL(forCatalogSHA256: "ab", catalogURL: URL(string: "https://cdn.example/store/catalog.json?t=1")!)
        #expect(url.absoluteString == "https://cdn.example/store/signatures/ab.sig?t=1")
    }
}
