import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// A catalog the service fetched itself goes through the same checks as a fetched one: signature over the exact
/// bytes, expiry, rollback against what the store accepted from the same location.
@Suite struct TrustCatalogBytesTests {
    let key = SigningKey.generate()
    let location = URL(string: "https://cdn.example.com/iap/catalog.json")!

    /// A catalog of one product at `archives/a.bin`, and its signature by `signer`.
    func signed(version: UInt64, expires: Date = Date().addingTimeInterval(3600), by signer: SigningKey? = nil) throws -> (Data, Data) {
        let entry = product("com.example.a", bytes: [1, 2, 3], path: "archives/a.bin")
        let data = try Catalog(catalogVersion: version, issuedAt: Date(), expires: expires, products: [entry]).encoded()
        return (data, try CatalogSigner(key: signer ?? key).sign(data).encoded())
    }

    func verify(_ data: Data, _ signature: Data?, store: Store, keys: [String]? = nil) throws -> CatalogSource {
        try CatalogSource.verified(
            catalogData: data, signatureData: signature, location: location, pinnedPublicKeys: keys ?? [key.publicKeyBase64],
            store: store)
    }

    @Test func signedBytesVerifyAndResolveAgainstTheirLocation() throws {
        let store = try makeStore()
        defer { store.remove() }
        let (data, signature) = try signed(version: 4)
        let source = try verify(data, signature, store: store)
        #expect(source.catalog.catalogVersion == 4)
        #expect(source.location == location)
        #expect(source.archiveURL(for: try source.product("com.example.a")) == "https://cdn.example.com/iap/archives/a.bin")
        #expect(try store.journal().highestCatalogVersion(catalogURL: location.absoluteString) == 4)
    }

    @Test func tamperedOrUnsignedBytesAreRefusedAndChangeNothing() throws {
        let store = try makeStore()
        defer { store.remove() }
        var (data, signature) = try signed(version: 5)
        let index = try #require(data.firstIndex(of: UInt8(ascii: "5")))
        data[index] = UInt8(ascii: "9")  // catalogVersion 5 → 9, still valid JSON
        let error = expectDownloadError(.badSignature) { _ = try verify(data, signature, store: store) }
        #expect(error?.message.contains(location.absoluteString) == true)
        expectDownloadError(.missingSignature) { _ = try verify(try signed(version: 5).0, nil, store: store) }
        let (other, otherSignature) = try signed(version: 5, by: SigningKey.generate())
        expectDownloadError(.badSignature) { _ = try verify(other, otherSignature, store: store) }
        #expect(try store.journal().highestCatalogVersion(catalogURL: location.absoluteString) == nil)
        // Unpinned (development): accepted without a signature, as a fetched catalog is.
        #expect(try verify(try signed(version: 5).0, nil, store: store, keys: []).catalog.catalogVersion == 5)
    }

    @Test func rollbackAndExpiryApplyAsToFetchedCatalogs() throws {
        let store = try makeStore()
        defer { store.remove() }
        let (newer, newerSignature) = try signed(version: 7)
        _ = try verify(newer, newerSignature, store: store)
        let (older, olderSignature) = try signed(version: 6)
        expectDownloadError(.rollback) { _ = try verify(older, olderSignature, store: store) }
        let (expired, expiredSignature) = try signed(version: 8, expires: Date().addingTimeInterval(-60))
        expectDownloadError(.catalogExpired) { _ = try verify(expired, expiredSignature, store: store) }
        #expect(try store.journal().highestCatalogVersion(catalogURL: location.absoluteString) == 7)
    }

    @Test func unverifiedBytesDecodeOrAreRefusedAsACatalogError() throws {
        let source = try CatalogSource(data: try signed(version: 2).0, location: location)
        #expect(source.catalog.catalogVersion == 2)
        let error = expectDownloadError(.catalog) { _ = try CatalogSource(data: Data("not json".utf8), location: location) }
        #expect(error?.message.contains("is not a valid catalog") == true)
    }
}
