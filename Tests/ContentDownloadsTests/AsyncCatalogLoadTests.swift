import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// The `async` catalog loads run libcurl on threads of their own: while more slow loads are in flight than Swift's
/// cooperative pool has threads, other tasks keep running, and the loads wait for the server side by side.
@Suite struct AsyncCatalogLoadTests {
    @Test func slowLoadsLeaveTheCooperativePoolFree() async throws {
        let server = try FaultServer(body: try TransportHeaderTests.catalogBytes(version: 6), replyDelay: 3)
        defer { server.stop() }
        let loads = ProcessInfo.processInfo.activeProcessorCount + 2
        let started = ContinuousClock.now
        let finishes = try await withThrowingTaskGroup(of: (String, Duration).self) { group in
            for _ in 0..<loads {
                group.addTask {
                    let source = try await CatalogSource.load(server.url("catalog.json"), transport: TransferSettings())
                    #expect(source.catalog.catalogVersion == 6)
                    return ("load", ContinuousClock.now - started)
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(50))
                return ("ticker", ContinuousClock.now - started)
            }
            var finishes: [(String, Duration)] = []
            for try await finish in group { finishes.append(finish) }
            return finishes
        }
        #expect(finishes.count == loads + 1)
        // Blocking loads would hold every cooperative thread for 3 s, and the ticker would end after them.
        #expect(finishes.first?.0 == "ticker", "\(finishes)")
        #expect(finishes.filter { $0.0 == "load" }.allSatisfy { $0.1 >= .seconds(3) }, "\(finishes)")
        // Side by side, every request reached the server before the first reply; queued behind one another (two
        // at a time, say) the later ones would arrive 3 s after the first. Timed by the server's threads, not by
        // tasks a loaded test run may keep waiting.
        let arrivals = server.records.map(\.arrival)
        #expect(arrivals.count == loads)
        if let first = arrivals.min(), let last = arrivals.max() {
            #expect(last.timeIntervalSince(first) < 2.9, "requests arrived over \(last.timeIntervalSince(first)) s")
        }
    }

    @Test func theVerifiedAsyncLoadChecksAndRemembersLikeTheBlockingOne() async throws {
        let store = try makeStore()
        defer { store.remove() }
        let key = SigningKey.generate()
        let data = try Catalog(catalogVersion: 3, issuedAt: Date(), expires: Date().addingTimeInterval(3600), products: []).encoded()
        let server = try FaultServer(body: [UInt8](data))
        defer { server.stop() }
        do {
            _ = try await CatalogSource.loadVerified(
                server.url("catalog.json"), pinnedPublicKeys: [key.publicKeyBase64], store: store, transport: TransferSettings())
            Issue.record("a catalog served as its own signature was accepted")
        } catch {
            #expect(error.code == .badSignature, "\(error.message)")
        }
        let source = try await CatalogSource.loadVerified(
            server.url("catalog.json"), pinnedPublicKeys: [], store: store, transport: TransferSettings())
        #expect(source.catalog.catalogVersion == 3)
        #expect(try store.journal().highestCatalogVersion(catalogURL: server.url("catalog.json")) == 3)
    }
}
