import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The client trusts only catalogs the publisher signed, that are fresh, and never older than one it saw.
@Suite(.serialized) struct TrustCatalogTests {
    @Test func signedCatalogIsAcceptedAndItsVersionRemembered() throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        let product = try site.addArchive("com.example.a", bytes: TestData.randomBytes(1000))
        try site.publish(version: 5, products: [product], signer: site.key)

        let source = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        #expect(source.catalog.catalogVersion == 5)
        #expect(try source.product("com.example.a") == product)
        #expect(try store.journal().highestCatalogVersion(catalogURL: site.catalogURL) == 5)
        #expect(site.requests(for: "/catalog.json.sig").count == 1)
    }

    @Test func oneTamperedByteIsRefused() throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        let product = try site.addArchive("com.example.a", bytes: TestData.randomBytes(1000))
        var data = try site.publish(version: 5, products: [product], signer: site.key)
        let index = try #require(data.firstIndex(of: UInt8(ascii: "5")))
        data[index] = UInt8(ascii: "9")  // catalogVersion 5 → 9, still valid JSON
        try data.write(to: site.catalogFile)

        let error = expectDownloadError(.badSignature) {
            _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        }
        #expect(error?.message.contains(site.catalogURL) == true)
        #expect(try store.journal().highestCatalogVersion(catalogURL: site.catalogURL) == nil)
    }

    @Test func catalogSignedByAnotherKeyIsRefused() throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        try site.publish(version: 1, products: [], signer: SigningKey.generate())
        let error = expectDownloadError(.badSignature) {
            _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        }
        #expect(error?.message.contains("does not pin") == true)
        // Rotation: pinning both the old and the new key accepts it.
        let other = SigningKey.generate()
        try site.publish(version: 2, products: [], signer: other)
        _ = try CatalogSource.loadVerified(
            site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64, other.publicKeyBase64], store: store)
    }

    @Test func missingSignatureWithAPinnedKeyIsRefused() throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        try site.publish(version: 1, products: [], signer: nil)
        expectDownloadError(.missingSignature) {
            _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        }
        // Without a pinned key the same catalog is accepted (development), and no .sig is asked for.
        let before = site.requests(for: "/catalog.json.sig").count
        _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [], store: store)
        #expect(site.requests(for: "/catalog.json.sig").count == before)
    }

    @Test func expiredCatalogIsRefusedEvenUnsigned() throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        try site.publish(version: 3, products: [], expires: Date().addingTimeInterval(-60), signer: site.key)
        expectDownloadError(.catalogExpired) {
            _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        }
        expectDownloadError(.catalogExpired) {
            _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [], store: store)
        }
        #expect(try store.journal().highestCatalogVersion(catalogURL: site.catalogURL) == nil)
    }

    @Test func rollbackIsRefusedAndTheHighestVersionNeverDrops() throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        try site.publish(version: 5, products: [], signer: site.key)
        _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        try site.publish(version: 4, products: [], signer: site.key)
        let error = expectDownloadError(.rollback) {
            _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        }
        #expect(error?.message.contains("4") == true && error?.message.contains("5") == true)
        // Unsigned mode enforces it too, and the refusal did not lower what is remembered.
        expectDownloadError(.rollback) {
            _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [], store: store)
        }
        #expect(try store.journal().highestCatalogVersion(catalogURL: site.catalogURL) == 5)
        // The same version again is fine (a re-fetch), and a newer one raises it.
        try site.publish(version: 5, products: [], signer: site.key)
        _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        try site.publish(version: 8, products: [], signer: site.key)
        _ = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)
        #expect(try store.journal().highestCatalogVersion(catalogURL: site.catalogURL) == 8)
    }

    @Test func olderVersionThanInstalledIsNotDownloaded() async throws {
        let site = try TrustSite()
        defer { site.stop() }
        let store = try makeStore()
        defer { store.remove() }
        let product = try site.addArchive("com.example.a", version: "1.0", bytes: TestData.randomBytes(2000))
        try site.publish(version: 1, products: [product], signer: site.key)
        try markInstalled(store, productID: "com.example.a", version: "2.0")
        let source = try CatalogSource.loadVerified(site.catalogURL, pinnedPublicKeys: [site.key.publicKeyBase64], store: store)

        let manager = try DownloadManager(store: store, options: fastOptions())
        try await manager.start()
        do {
            try await manager.enqueue(product, candidates: source.archiveURLCandidates(for: product), catalogURL: site.catalogURL, plan: .wholeArchive)
            Issue.record("a downgrade was enqueued")
        } catch let error as DownloadError {
            #expect(error.code == .downgrade)
            #expect(error.message.contains("2.0") && error.message.contains("1.0"))
        }
        await manager.shutdown()
        #expect(site.requests(for: "/\(product.path)").isEmpty)
        #expect(try store.ledger().record("com.example.a") == nil)
        // The same version as installed is allowed (a re-download).
        try markInstalled(store, productID: "com.example.a", version: "1.0")
        try store.checkNoDowngrade(product)
    }
}
