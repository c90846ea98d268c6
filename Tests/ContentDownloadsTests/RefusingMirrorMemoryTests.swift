import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A mirror dropped for refusing (429/503 three times) is left alone by the next downloads of the same engine (the
/// daemon's) for a bounded time — its `Retry-After` when that is longer — then tried again; a download whose only
/// mirror refused lately still runs, after that `Retry-After`.
@Suite("Chunk scheduler: a refusing mirror remembered")
struct RefusingMirrorMemoryTests {
    typealias Fixture = RefusingMirrorFixture

    @Test(arguments: [429, 503])
    func theNextDownloadLeavesAMirrorThatKeptRefusingAlone(status: Int) async throws {
        let run = try await Fixture()
        let refusing = try FaultServer(body: run.first.archive, faults: Array(repeating: .status(status, retryAfter: 0), count: 50))
        let good = try FaultServer(body: run.first.archive, chunkDelay: 0.002)
        let goodSecond = try FaultServer(body: run.second.archive, chunkDelay: 0.002)
        defer { refusing.stop(); good.stop(); goodSecond.stop() }

        let firstEnd = try await run.download(run.first, from: [refusing, good])
        #expect(firstEnd?.state == .finished, "\(firstEnd?.error?.message ?? "")")
        let refusedFirst = Fixture.archiveRequests(refusing).count
        #expect(refusedFirst == 3, "the first download asks three times, then drops it")

        let secondEnd = try await run.download(run.second, from: [refusing, goodSecond])
        await run.stop()
        #expect(secondEnd?.state == .finished, "\(secondEnd?.error?.message ?? "")")
        #expect(try diffTrees(run.second.folder, run.second.tree).status == 0)
        #expect(Fixture.archiveRequests(refusing).count == refusedFirst,
                "the next download does not ask it again: \(refusing.records.map { $0.range ?? "-" })")
        #expect(goodSecond.totalBodyBytesSent == run.second.archive.count, "the other mirror serves it all, once")
    }

    @Test func aMirrorIsTriedAgainOnceItsRestIsOver() async throws {
        let run = try await Fixture(restSeconds: 1)
        let refusing = try FaultServer(body: run.first.archive, faults: Array(repeating: .status(429, retryAfter: 0), count: 50))
        defer { refusing.stop() }
        _ = try await run.twoDownloadsBeside(refusing)
        #expect(Fixture.archiveRequests(refusing).count > 3, "once its rest is over it is asked again")
    }

    @Test func aRetryAfterLongerThanTheRestIsHonoured() async throws {
        let run = try await Fixture(restSeconds: 1)
        // The third refusal, the one that drops it, asks for 60 s: longer than the engine's 1 s.
        let refusing = try FaultServer(body: run.first.archive, faults: [
            .status(503, retryAfter: 0), .status(503, retryAfter: 0), .status(429, retryAfter: 60),
        ] + Array(repeating: .status(429, retryAfter: 60), count: 20))
        defer { refusing.stop() }
        // The second download starts past the engine's 1 s rest, within the Retry-After.
        let (_, goodSecond) = try await run.twoDownloadsBeside(refusing)
        #expect(Fixture.archiveRequests(refusing).count == 3, "left alone for its Retry-After")
        #expect(goodSecond.totalBodyBytesSent == run.second.archive.count)
    }

    @Test func aDownloadWhoseOnlyMirrorRefusedLatelyStillRunsAfterItsRetryAfter() async throws {
        let run = try await Fixture()
        // Refuses three times (the last asking for 10 s: far longer than the rest of the first download takes, so
        // only honouring it explains the wait), then serves the first product.
        let refusing = try FaultServer(body: run.first.archive, faults: [
            .status(503, retryAfter: 0), .status(503, retryAfter: 0), .status(429, retryAfter: 10),
        ])
        let goodSecond = try FaultServer(body: run.second.archive, chunkDelay: 0.002)
        defer { refusing.stop(); goodSecond.stop() }

        let secondEnd = try await run.download(run.second, from: [refusing, goodSecond])
        #expect(secondEnd?.state == .finished, "\(secondEnd?.error?.message ?? "")")
        #expect(Fixture.archiveRequests(refusing).count == 3, "dropped, so remembered")

        let firstEnd = try await run.download(run.first, from: [refusing])
        await run.stop()
        #expect(firstEnd?.state == .finished, "the only mirror is asked after all: \(firstEnd?.error?.message ?? "")")
        #expect(try diffTrees(run.first.folder, run.first.tree).status == 0)
        let asked = Fixture.archiveRequests(refusing)
        #expect(asked.count > 3)
        if asked.count > 3 {
            let wait = asked[3].arrival.timeIntervalSince(asked[2].arrival)
            #expect(wait >= 9.9, "not before the Retry-After its last refusal gave (\(wait) s)")
        }
    }

    @Test func aRefusingMirrorIsRememberedForABoundedTimeByOrigin() {
        let memory = RefusingMirrors(restSeconds: 300)
        memory.remember("http://127.0.0.1:8080/archives/a.tar.zst", now: 100)
        #expect(memory.isResting("HTTP://127.0.0.1:8080/archives/b.tar.zst", now: 100), "by origin, for every archive")
        #expect(memory.isResting("http://127.0.0.1:8080/x", now: 399.9))
        #expect(!memory.isResting("http://127.0.0.1:8081/x", now: 200), "another port is another origin")
        #expect(!memory.isResting("https://127.0.0.1:8080/x", now: 200), "another scheme is another origin")
        #expect(!memory.isResting("http://127.0.0.2:8080/x", now: 200), "another host is another origin")
        #expect(!memory.isResting("http://127.0.0.1:8080/x", now: 400), "tried again once its time is up")

        memory.remember("https://cdn.example.net/a", retryAfter: 900, now: 0)
        #expect(memory.rest(of: "https://cdn.example.net:443/b", now: 600) == .init(until: 900, retryAt: 900),
                "a longer Retry-After wins; the default port is the same origin")
        memory.remember("https://slow.example.net/a", retryAfter: 1e9, now: 0)
        #expect(memory.rest(of: "https://slow.example.net/a", now: 0)?.until == RefusingMirrors.longestRetryAfter, "at most an hour")

        let off = RefusingMirrors(restSeconds: 0)
        off.remember("http://127.0.0.1:8080/a", retryAfter: 60, now: 100)
        #expect(!off.isResting("http://127.0.0.1:8080/a", now: 100), "0: remembers nothing")
    }
}
