@testable import ContentDownloads
import Foundation
import Testing

/// A snapshot of download `productID` for the broadcaster tests.
func snapshot(
    _ productID: String, _ state: DownloadState, bytes: Int64 = 0, timeRemaining: Double = -1, tag: String = ""
) -> DownloadSnapshot {
    DownloadSnapshot(
        productID: productID, contentIdentifier: productID + tag, contentVersion: "1.0", state: state,
        downloadedBytes: bytes, expectedContentLength: 1 << 30, progress: Double(bytes) / Double(1 << 30),
        timeRemaining: timeRemaining, error: nil)
}

/// The states a listener saw, each run of one state once.
func stateChanges(_ snapshots: [DownloadSnapshot]) -> [DownloadState] {
    snapshots.map(\.state).reduce(into: []) { if $0.last != $1 { $0.append($1) } }
}

/// Resident memory of this process in bytes (`/proc/self/statm`).
func residentBytes() -> Int {
    let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

@Suite("Updates: broadcaster")
struct UpdateBroadcasterTests {
    @Test func twoListenersSeeTheSameStateChangesAndTheLatestProgress() async {
        let broadcaster = UpdateBroadcaster<DownloadSnapshot>()
        let listeners = (0..<2).map { _ in broadcaster.subscribe() }
        let readers = listeners.map { updates in
            Task { await Array(updates) }
        }
        broadcaster.yield(snapshot("a", .waiting))
        broadcaster.yield(snapshot("a", .active))
        for step in 1...5_000 { broadcaster.yield(snapshot("a", .active, bytes: Int64(step), timeRemaining: 9)) }
        broadcaster.yield(snapshot("a", .paused, bytes: 5_000))
        broadcaster.yield(snapshot("a", .active, bytes: 5_000))
        for step in 5_001...10_000 { broadcaster.yield(snapshot("a", .active, bytes: Int64(step), timeRemaining: 9)) }
        broadcaster.yield(snapshot("a", .finished, bytes: 1 << 30))
        broadcaster.finish()
        for reader in readers {
            let seen = await reader.value
            #expect(stateChanges(seen) == [.waiting, .active, .paused, .active, .finished])
            #expect(seen.map(\.downloadedBytes) == seen.map(\.downloadedBytes).sorted())
            // A state change carries its own snapshot; the latest progress is never lost to coalescing.
            #expect(seen.contains { $0.state == .paused && $0.downloadedBytes == 5_000 })
            #expect(seen.contains { $0.downloadedBytes == 10_000 && $0.timeRemaining == 9 })
        }
        #expect(broadcaster.listenerCount == 0)
    }

    @Test("a listener that never reads holds one progress per download plus the state changes, over 100 000 updates")
    func neverReadingListenerStaysBounded() async {
        let broadcaster = UpdateBroadcaster<DownloadSnapshot>()
        let idle = broadcaster.subscribe()
        let downloads = (0..<8).map { "com.example.\($0)" }
        for id in downloads { broadcaster.yield(snapshot(id, .active)) }
        let before = residentBytes()
        var stateChanges = downloads.count
        let filler = String(repeating: "x", count: 40 << 10)
        for step in 1...100_000 {
            let id = downloads[step % downloads.count]
            // A unique 40 KiB per update: 100 000 kept would be 4 GiB. The resident size is the whole process's, and
            // the other suites running in it at the same time (their threads' malloc arenas among them) grew it by up
            // to 392 MiB during this test, so the bound is 1 GiB: far above that, far below what keeping would take.
            let tag = filler + "\(step)"  // a copy of its own
            if step % 25_000 == 0 {
                broadcaster.yield(snapshot(id, .paused, bytes: Int64(step), tag: tag))
                broadcaster.yield(snapshot(id, .active, bytes: Int64(step), tag: tag))
                stateChanges += 2
            } else {
                broadcaster.yield(snapshot(id, .active, bytes: Int64(step), timeRemaining: 30, tag: tag))
            }
        }
        let grown = residentBytes() - before
        let buffered = broadcaster.bufferedCounts
        #expect(buffered.count == 1)
        #expect(buffered.allSatisfy { $0 <= downloads.count + stateChanges }, "\(buffered)")
        #expect(grown < 1 << 30, "resident memory grew \(grown >> 20) MiB")
        withExtendedLifetime(idle) {}
    }

    @Test("a stall's -1 and every state change survive coalescing, in order")
    func stallAndStateChangesSurvive() async {
        let broadcaster = UpdateBroadcaster<DownloadSnapshot>()
        let updates = broadcaster.subscribe()
        broadcaster.yield(snapshot("a", .active, bytes: 1, timeRemaining: 5))
        broadcaster.yield(snapshot("a", .active, bytes: 2, timeRemaining: 4))
        broadcaster.yield(snapshot("a", .active, bytes: 2, timeRemaining: -1))  // stalled
        broadcaster.yield(snapshot("a", .active, bytes: 3, timeRemaining: 3))
        broadcaster.yield(snapshot("b", .active, bytes: 1, timeRemaining: 7))
        broadcaster.yield(snapshot("a", .active, bytes: 4, timeRemaining: 2))
        broadcaster.yield(snapshot("a", .failed, bytes: 4))
        broadcaster.finish()
        let seen = await Array(updates).map { "\($0.productID) \($0.state) \($0.downloadedBytes) \($0.timeRemaining)" }
        #expect(seen == ["a active 1 5.0", "a active 2 -1.0", "b active 1 7.0", "a active 4 2.0", "a failed 4 -1.0"])
    }

    @Test func filteredListenerGetsOnlyWhatItsFilterKeeps() async {
        let broadcaster = UpdateBroadcaster<DownloadSnapshot>()
        let onlyB = broadcaster.subscribe { $0.productID == "b" ? $0 : nil }
        broadcaster.yield(snapshot("a", .active))
        broadcaster.yield(snapshot("b", .waiting))
        broadcaster.yield(snapshot("a", .finished))
        #expect(broadcaster.bufferedCounts.sorted() == [1])
        broadcaster.finish()
        #expect(await Array(onlyB).map(\.productID) == ["b"])
    }

    @Test func cancellingTheListeningTaskRemovesItsListener() async throws {
        let broadcaster = UpdateBroadcaster<DownloadSnapshot>()
        let updates = broadcaster.subscribe()
        let listening = Task { await Array(updates) }
        broadcaster.yield(snapshot("a", .active))
        #expect(broadcaster.listenerCount == 1)
        listening.cancel()
        _ = await listening.value
        #expect(broadcaster.listenerCount == 0)
        broadcaster.yield(snapshot("a", .finished))  // goes nowhere
        #expect(broadcaster.bufferedCounts.isEmpty)
    }

    @Test func droppingTheSequenceOrItsIteratorRemovesTheListener() async {
        let broadcaster = UpdateBroadcaster<DownloadSnapshot>()
        do {
            let updates = broadcaster.subscribe()
            broadcaster.yield(snapshot("a", .active))
            #expect(broadcaster.listenerCount == 1)
            var iterator = updates.makeAsyncIterator()
            #expect(await iterator.next()?.state == .active)
        }
        #expect(broadcaster.listenerCount == 0)
        _ = broadcaster.subscribe()  // never kept
        #expect(broadcaster.listenerCount == 0)
    }

    @Test func finishEndsListenersAfterTheyDrainAndLaterOnesAtOnce() async {
        let broadcaster = UpdateBroadcaster<DownloadSnapshot>()
        let updates = broadcaster.subscribe()
        broadcaster.yield(snapshot("a", .waiting))
        broadcaster.yield(snapshot("a", .active))
        broadcaster.yield(snapshot("a", .finished))
        broadcaster.finish()
        broadcaster.yield(snapshot("a", .failed))  // after the end: dropped
        #expect(stateChanges(await Array(updates)) == [.waiting, .active, .finished])
        #expect(broadcaster.listenerCount == 0)
        #expect(await Array(broadcaster.subscribe()).isEmpty)
    }
}

extension Array {
    /// Every element of `sequence`, in order.
    init<S: AsyncSequence<Element, Never>>(_ sequence: S) async {
        self = []
        for await element in sequence { append(element) }
    }
}
