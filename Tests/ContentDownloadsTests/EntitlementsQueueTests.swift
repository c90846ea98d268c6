import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

extension QueueFixture {
    /// Where nginx serves the entitlements document.
    var entitlementsURL: String { nginx.baseURL + "/entitlements.json" }

    /// Signs and publishes an entitlements document for `customer-1` (and its `.sig`) in nginx's root.
    func entitle(_ products: [String: Entitlements.State], sequence: UInt64, key: SigningKey, expires: Date? = nil) throws {
        let document = Entitlements(subject: "customer-1", issuedAt: Date(), sequence: sequence, expires: expires, products: products)
        try document.write(to: nginx.root.appendingPathComponent("entitlements.json"), signingKey: key)
    }

    /// The store's source for the published document, pinned to `key`.
    func entitlementSource(_ key: SigningKey) -> any EntitlementSource {
        store.signedEntitlements(at: entitlementsURL, pinnedPublicKeys: [key.publicKeyBase64])
    }
}

/// Proactive restore: a new store restores what the signed entitlements list, and removes what they withdraw.
@Suite("Content queue: entitlements", .serialized)
struct EntitlementsQueueTests {
    let a = "com.example.ent.a"
    let b = "com.example.ent.b"

    @Test("a new store restores every active product without a purchase; revoked content is removed and reported")
    func restoreThenRevoke() async throws {
        let fixture = try QueueFixture()
        let key = SigningKey.generate()
        let sourceA = try fixture.source(a, version: "1.0")
        let sourceB = try fixture.source(b, version: "1.0")
        try fixture.publish([sourceA, sourceB], signingKey: key)
        try fixture.entitle([a: .active, b: .active], sequence: 1, key: key)

        let queue = try fixture.queue()
        await queue.setEntitlementSource(fixture.entitlementSource(key))
        try await queue.open()
        let restored = await queue.transactions()
        #expect(restored.map(\.productID).sorted() == [a, b])
        #expect(restored.allSatisfy { $0.kind == .restore && $0.state == .restored })
        let ended = await waitForDownloads(queue, restored.map(\.id))
        for transaction in ended.values {
            #expect(transaction.downloads.map(\.state) == [.finished], "\(transaction)")
            try await queue.finish(transaction.id)
        }
        await queue.close()
        #expect(try diffTrees(sourceA, #require(fixture.store.contentURL(forProductID: a))).status == 0)
        #expect(try diffTrees(sourceB, #require(fixture.store.contentURL(forProductID: b))).status == 0)

        // Revoked: the next open removes the content.
        try fixture.entitle([a: .active, b: .revoked], sequence: 2, key: key)
        let second = try fixture.queue()
        await second.setEntitlementSource(fixture.entitlementSource(key))
        let updates = second.updates  // the removal is an update too
        let told = Task { () -> [String] in
            for await update in updates { if case .contentRemoved(let ids) = update { return ids } }
            return []
        }
        try await second.open()
        #expect(await told.value == [b])
        #expect(fixture.store.contentURL(forProductID: b) == nil)
        #expect(fixture.store.contentURL(forProductID: a) != nil)
        #expect(await second.transactions().isEmpty)
        await second.close()

        // Expired: a host that opts out keeps the content; reconciling otherwise removes it and says which.
        try fixture.entitle([a: .expired, b: .revoked], sequence: 3, key: key)
        let keeping = try fixture.queue()
        await keeping.setEntitlementSource(fixture.entitlementSource(key), removingWithdrawnContent: false)
        try await keeping.open()
        #expect(fixture.store.contentURL(forProductID: a) != nil)
        await keeping.close()
        let third = try fixture.queue()
        try await third.open()
        await third.setEntitlementSource(fixture.entitlementSource(key))
        let outcome = try await third.reconcileEntitlements()
        #expect(outcome.removed == [a])
        #expect(outcome.restored.isEmpty)
        #expect(fixture.store.contentURL(forProductID: a) == nil)
        await third.close()
    }

    @Test("tampered, unsigned, expired and rolled-back documents are refused, each with its own code and the URL")
    func refusals() async throws {
        let fixture = try QueueFixture()
        let key = SigningKey.generate()
        try fixture.publish([try fixture.source(a, version: "1.0")])
        let source = fixture.entitlementSource(key)
        try fixture.entitle([a: .active], sequence: 5, key: key)
        #expect(try await source.entitlements().sequence == 5)

        let file = fixture.nginx.root.appendingPathComponent("entitlements.json")
        let original = try Data(contentsOf: file)
        try Data(String(decoding: original, as: UTF8.self).replacingOccurrences(of: "active", with: "revoked").utf8).write(to: file)
        try await expectRefusal(source, code: .badSignature, saying: "altered")

        try fixture.entitle([a: .active], sequence: 6, key: key)
        try FileManager.default.removeItem(at: fixture.nginx.root.appendingPathComponent("entitlements.json.sig"))
        try await expectRefusal(source, code: .missingSignature, saying: "entitlements.json.sig is missing")

        try fixture.entitle([a: .active], sequence: 7, key: key, expires: Date(timeIntervalSinceNow: -60))
        try await expectRefusal(source, code: .entitlementsExpired, saying: "expired at")

        try fixture.entitle([a: .active], sequence: 4, key: key)
        try await expectRefusal(source, code: .rollback, saying: "older than sequence 5")

        let forAnother = fixture.store.signedEntitlements(
            at: fixture.entitlementsURL, pinnedPublicKeys: [key.publicKeyBase64], subject: "customer-2")
        try fixture.entitle([a: .active], sequence: 8, key: key)
        try await expectRefusal(forAnother, code: .entitlements, saying: "not of customer-2")
        try fixture.entitle([a: .active], sequence: 4, key: key)

        // A refused document changes nothing at open: the queue opens and restores nothing.
        let queue = try fixture.queue()
        await queue.setEntitlementSource(source)
        try await queue.open()
        #expect(await queue.transactions().isEmpty)
        await queue.close()
    }

    @Test("revoking a product whose download is running cancels it and finishes its transaction")
    func revokeDuringDownload() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 100k;")
        let key = SigningKey.generate()
        try fixture.publish([try fixture.source(a, version: "1.0", size: 2 << 20)])
        let queue = try fixture.queue()
        try await queue.open()
        try await queue.add(VerifiedPurchase(transactionID: "t-1", productID: a))
        try fixture.entitle([a: .revoked], sequence: 1, key: key)
        await queue.setEntitlementSource(fixture.entitlementSource(key))
        let outcome = try await queue.reconcileEntitlements()
        #expect(outcome.removed.isEmpty)  // nothing was installed yet
        #expect(await queue.transactions().isEmpty)
        #expect(try await queue.historyProductIDs() == [a])
        await queue.close()
        #expect(fixture.store.contentURL(forProductID: a) == nil)
    }

    private func expectRefusal(_ source: any EntitlementSource, code: DownloadError.Code, saying text: String) async throws {
        do {
            _ = try await source.entitlements()
            Issue.record("expected a refusal with code \(code.rawValue)")
        } catch let error as DownloadError {
            #expect(error.code == code, "\(error.message)")
            #expect(error.message.contains(text), "\(error.message)")
            #expect(error.message.contains("/entitlements.json"), "\(error.message)")
        }
    }
}
