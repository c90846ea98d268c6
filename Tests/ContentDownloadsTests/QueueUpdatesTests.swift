import ContentDelivery
@testable import ContentDownloads
import Foundation
import Testing
import TestSupport

/// Reads `updates` until every download of `transactionIDs` has stopped (or the sequence ends); returns
/// every update read, in order.
func collect(
    _ updates: some AsyncSequence<ContentQueueUpdate, Never>, until transactionIDs: Set<String>
) async -> [ContentQueueUpdate] {
    var seen: [ContentQueueUpdate] = []
    var stopped: Set<String> = []
    for await update in updates {
        seen.append(update)
        if case .downloads(let downloads) = update {
            for download in downloads where !download.state.isInFlight { stopped.insert(download.transactionID) }
        }
        if transactionIDs.isSubset(of: stopped) { break }
    }
    return seen
}

/// The downloads of `transactionID` in `updates`, in order.
func downloads(of transactionID: String, in updates: [ContentQueueUpdate]) -> [ContentDownload] {
    updates.flatMap { update -> [ContentDownload] in
        guard case .downloads(let downloads) = update else { return [] }
        return downloads.filter { $0.transactionID == transactionID }
    }
}

@Suite("Queue: listeners and per-product updates", .serialized)
struct QueueUpdatesTests {
    @Test func twoListenersSeeTheSameStateChanges() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 2m;")
        try fixture.publish([try fixture.source("com.example.levels", version: "1.0", size: 1 << 20)])
        let queue = try fixture.queue()
        try await queue.open()
        let readers = [queue.updates, queue.updates].map { updates in
            Task { await collect(updates, until: ["t1"]) }
        }
        #expect(queue.published.listenerCount == 2)
        try await queue.add(VerifiedPurchase(transactionID: "t1", productID: "com.example.levels"))
        var seen: [[ContentDownload]] = []
        for reader in readers { seen.append(downloads(of: "t1", in: await reader.value)) }
        await queue.close()

        let changes = seen.map { stateChanges($0.map(\.snapshot)) }
        #expect(changes[0] == changes[1])
        #expect(changes[0].last == .finished, "\(changes[0])")
        #expect(changes[0].contains(.active))
        #expect(seen[0].last == seen[1].last)
        #expect(seen[0].last?.contentURL == queue.contentURL(forProductID: "com.example.levels"))
        #expect(queue.published.listenerCount == 0)  // both stopped reading: both removed
    }

    @Test func perProductUpdatesCarryOnlyThatProduct() async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 2m;")
        try fixture.publish([
            try fixture.source("com.example.levels", version: "1.0", size: 512 << 10),
            try fixture.source("com.example.music", version: "1.0", size: 1 << 20),
        ])
        let queue = try fixture.queue()
        try await queue.open()
        let music = Task { [updates = queue.updates(for: "com.example.music")] in await collect(updates, until: ["t-music"]) }
        let everything = Task { [updates = queue.updates] in await collect(updates, until: ["t-levels", "t-music"]) }
        try await queue.add(VerifiedPurchase(transactionID: "t-levels", productID: "com.example.levels"))
        try await queue.add(VerifiedPurchase(transactionID: "t-music", productID: "com.example.music"))
        let onlyMusic = await music.value
        let all = await everything.value
        await queue.close()

        for update in onlyMusic {
            switch update {
            case .transactions(let transactions): #expect(transactions.allSatisfy { $0.productID == "com.example.music" })
            case .downloads(let downloads): #expect(downloads.allSatisfy { $0.productID == "com.example.music" })
            case .contentRemoved(let productIDs): #expect(productIDs == ["com.example.music"])
            case .entitlementsReconciled: Issue.record("a reconciliation is not about one product")
            case .packsChanged(let productID, _): #expect(productID == "com.example.music")
            case .updatesAvailable(let updates): #expect(updates.allSatisfy { $0.productID == "com.example.music" })
            }
        }
        #expect(onlyMusic.contains { if case .transactions(let t) = $0 { t.map(\.id) == ["t-music"] } else { false } })
        let musicChanges = stateChanges(downloads(of: "t-music", in: onlyMusic).map(\.snapshot))
        #expect(musicChanges == stateChanges(downloads(of: "t-music", in: all).map(\.snapshot)))
        #expect(musicChanges.last == .finished)
        #expect(downloads(of: "t-levels", in: all).last?.state == .finished)
    }

    @Test("a queue listener that never reads stays bounded over 100 000 progress updates")
    func neverReadingQueueListenerStaysBounded() async throws {
        let store = try makeStore()
        defer { store.remove() }
        let queue = try ContentQueue(store: store, catalog: nil)
        let idle = queue.updates
        let products = (0..<4).map { "com.example.\($0)" }
        var stateChanges = 0
        var last: [String: DownloadState] = [:]
        for step in 0..<100_000 {
            let id = products[step % products.count]
            let state: DownloadState = step < products.count ? .waiting : step % 20_000 == 0 ? .paused : .active
            if last.updateValue(state, forKey: id) != state { stateChanges += 1 }
            let download = ContentDownload(
                transactionID: "t-\(id)", snapshot: snapshot(id, state, bytes: Int64(step), timeRemaining: 12), contentURL: nil)
            await queue.deliver(.downloads([download]))
        }
        let buffered = queue.published.bufferedCounts
        #expect(buffered.count == 1)
        #expect(buffered.allSatisfy { $0 <= products.count + stateChanges }, "\(buffered), \(stateChanges) state changes")
        withExtendedLifetime(idle) {}
    }
}
