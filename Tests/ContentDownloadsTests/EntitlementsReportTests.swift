import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// What reconciling did is reported — a refused document too, which `open()` does not throw — and the store's
/// status matches it right after a revocation.
@Suite("Entitlements: the outcome is reported", .serialized)
struct EntitlementsReportTests {
    let a = "com.example.report.a"

    @Test func aRefusedDocumentAtOpenIsReportedWithItsCode() async throws {
        let fixture = try QueueFixture()
        let key = SigningKey.generate()
        try fixture.publish([try fixture.source(a, version: "1.0")], signingKey: key)
        try fixture.entitle([a: .active], sequence: 1, key: key)
        let file = fixture.nginx.root.appendingPathComponent("entitlements.json")
        let tampered = String(decoding: try Data(contentsOf: file), as: UTF8.self).replacingOccurrences(of: "active", with: "revoked")
        try Data(tampered.utf8).write(to: file)

        let queue = try fixture.queue()
        await queue.setEntitlementSource(fixture.entitlementSource(key))
        let updates = queue.updates
        let told = Task { () -> EntitlementReconciliation? in
            for await update in updates { if case .entitlementsReconciled(let outcome) = update { return outcome } }
            return nil
        }
        try await queue.open()  // opens: a refused document changes nothing
        let last = await queue.lastReconciliation
        await queue.close()
        #expect(last?.refusal?.code == .badSignature, "\(String(describing: last))")
        #expect(last?.restored.isEmpty == true)
        #expect(await told.value == last)
    }

    @Test func afterARevocationStatusShowsTheProductNotInstalled() async throws {
        let fixture = try QueueFixture()
        let key = SigningKey.generate()
        try fixture.publish([try fixture.source(a, version: "1.0")], signingKey: key)
        try fixture.entitle([a: .active], sequence: 1, key: key)
        let queue = try fixture.queue()
        await queue.setEntitlementSource(fixture.entitlementSource(key))
        try await queue.open()
        let restored = await queue.transactions()
        #expect(await queue.lastReconciliation?.restored == restored.map(\.id))
        for transaction in await waitForDownloads(queue, restored.map(\.id)).values { try await queue.finish(transaction.id) }
        await queue.close()
        #expect(try StoreOverview(store: fixture.store).downloads.map(\.state) == [.finished])

        try fixture.entitle([a: .revoked], sequence: 2, key: key)
        let second = try fixture.queue()
        await second.setEntitlementSource(fixture.entitlementSource(key))
        try await second.open()
        #expect(await second.lastReconciliation?.removed == [a])
        await second.close()
        #expect(fixture.store.contentURL(forProductID: a) == nil)
        let downloads = try StoreOverview(store: fixture.store).downloads
        #expect(downloads.isEmpty, "status still lists a download of revoked content: \(downloads)")
    }
}
