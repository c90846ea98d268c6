@testable import ContentDownloads
import CurlTransport
import Testing

/// The rules a chunk download's mirrors live by (``MirrorSet``), without a server: which mirror a connection goes
/// to, and what a refusal, a network failure, a stall, an error status or a bad frame does to the mirror.
@Suite("mirror rules")
struct MirrorSetTests {
    static func mirrors(_ count: Int, confirmed: Bool = true) -> MirrorSet {
        MirrorSet(urls: (0..<count).map { "http://127.0.0.1:\(8000 + $0)/a" }, answersRange: { _ in confirmed })
    }

    static let refused = TransferFailure.httpStatus(429, url: "http://127.0.0.1:8000/a", retryAfter: 2)
    static let network = TransferFailure.network(CurlError(code: .operationTimedOut, message: "no bytes", url: "http://127.0.0.1:8000/a"))

    @Test func refusalsSlowAMirrorDownAndTheThirdDropsItOnlyWhileAnotherIsUp() {
        var fault = MirrorSet.Fault.counted
        var two = Self.mirrors(2)
        fault = two.take(Self.refused, at: 0, holding: 4, stalled: false, now: 10)
        #expect(fault == .slowedDown)
        #expect(two[0].connectionCap == 2 && two[0].retryAt == 12 && two[1].connectionCap == nil, "its own back-off")
        fault = two.take(Self.refused, at: 0, holding: 2, stalled: false, now: 12)
        #expect(fault == .slowedDown)
        fault = two.take(Self.refused, at: 0, holding: 1, stalled: false, now: 14)
        #expect(fault == .droppedRefusing(retryAfter: 2))

        var one = Self.mirrors(1)
        for now in [10.0, 12, 14, 16, 18] {
            fault = one.take(Self.refused, at: 0, holding: 1, stalled: false, now: now)
            #expect(fault == .slowedDown, "the only mirror is never dropped for refusing")
        }
    }

    @Test func networkFailuresCountAndADeliveredRunForgetsThem() {
        var fault = MirrorSet.Fault.counted
        var mirrors = Self.mirrors(1)
        fault = mirrors.take(Self.network, at: 0, holding: 1, stalled: false, now: 0)
        #expect(fault == .counted)
        fault = mirrors.take(Self.network, at: 0, holding: 1, stalled: false, now: 0)
        #expect(fault == .counted)
        mirrors.delivered(at: 0)
        fault = mirrors.take(Self.network, at: 0, holding: 1, stalled: false, now: 0)
        #expect(fault == .counted)
        fault = mirrors.take(Self.network, at: 0, holding: 1, stalled: false, now: 0)
        #expect(fault == .counted)
        fault = mirrors.take(Self.network, at: 0, holding: 1, stalled: false, now: 0)
        #expect(fault == .dropped, "three in a row")
    }

    @Test func aStallDropsAMirrorAtOnceOnlyWhileAnotherIsUp() {
        var fault = MirrorSet.Fault.counted
        var two = Self.mirrors(2), one = Self.mirrors(1)
        fault = two.take(Self.network, at: 1, holding: 1, stalled: true, now: 0)
        #expect(fault == .dropped)
        fault = one.take(Self.network, at: 0, holding: 1, stalled: true, now: 0)
        #expect(fault == .counted)
    }

    @Test(arguments: [
        TransferFailure.httpStatus(404, url: "u", retryAfter: nil), .httpStatus(500, url: "u", retryAfter: nil),
        .lengthMismatch(expected: 1, actual: 2, url: "u"), .cannotResume(reason: "no range"),
    ])
    func anyOtherFailureDropsAMirrorAtOnce(_ failure: TransferFailure) {
        var fault = MirrorSet.Fault.counted
        var one = Self.mirrors(1)
        fault = one.take(failure, at: 0, holding: 1, stalled: false, now: 0)
        #expect(fault == .dropped)
        let dropped = one.drop(0, failure, now: 0, rest: { _ in nil })
        #expect(dropped && !one.anyUp && one.lastFailure != nil)
        let again = one.drop(0, failure, now: 0, rest: { _ in nil })
        #expect(!again, "dropped once")
    }

    @Test func aSecondBadFrameDropsAMirrorWhileAnotherIsUp() {
        var two = Self.mirrors(2), one = Self.mirrors(1)
        let first = two.servedBadFrame(at: 0, "hash"), second = two.servedBadFrame(at: 0, "hash")
        #expect(!first && second)
        let alone = [one.servedBadFrame(at: 0, "hash"), one.servedBadFrame(at: 0, "hash")]
        #expect(alone == [false, false], "the only mirror is kept")
    }

    @Test func mirrorsRememberedRefusingRestWhileAnotherIsUpAndAreAskedGentlyWhenNoneIs() {
        let rest = RefusingMirrors.Rest(until: 500, retryAt: 130)
        var some = Self.mirrors(3)
        let (remembered, taken) = some.leaveRefusingAlone(now: 100) { $0.hasSuffix(":8001/a") ? rest : nil }
        #expect(remembered == [1] && !taken && some[1].dropped && some[1].resting && some.upCount == 2)
        _ = some.drop(0, .httpStatus(404, url: "u", retryAfter: nil), now: 100, rest: { _ in rest })
        #expect(some[1].dropped, "one mirror is still up")
        _ = some.drop(2, .httpStatus(404, url: "u", retryAfter: nil), now: 100, rest: { _ in rest })
        #expect(!some[1].dropped && some[1].connectionCap == 1 && some[1].retryAt == 130, "the last one left is asked, gently")

        var all = Self.mirrors(2)
        let far = RefusingMirrors.Rest(until: 5000, retryAt: 4000)
        let taken2 = all.leaveRefusingAlone(now: 100) { _ in far }.taken
        #expect(taken2)
        #expect(all.upCount == 2 && all[0].connectionCap == 1 && all[0].retryAt == 160, "at most a minute's wait")
    }

    @Test func aConnectionGoesToTheMirrorWithFewestThenTheOneThatDeliveredMost() {
        var mirrors = Self.mirrors(3)
        mirrors[2].delivered = 10
        let pick = { (counts: [Int: Int], now: Double) in
            mirrors.pick(counts: counts, now: now, hasWork: { _ in true }, probes: { _ in false })
        }
        #expect(pick([:], 0) == 2)
        #expect(pick([2: 1], 0) == 0)
        #expect(pick([0: 1, 1: 1, 2: 2], 0) == 0 || pick([0: 1, 1: 1, 2: 2], 0) == 1)
        _ = mirrors.take(Self.refused, at: 0, holding: 2, stalled: false, now: 0)
        #expect(pick([1: 1, 2: 1], 1) == 2, "not before its Retry-After")
        #expect(mirrors.pick(counts: [:], now: 0, hasWork: { $0 == 1 }, probes: { _ in false }) == 1, "only where work waits")
    }

    @Test func aMirrorNotYetProvenGetsOneConnectionUnlessItProbes() {
        let unproven = Self.mirrors(1, confirmed: false)
        #expect(unproven.pick(counts: [:], now: 0, hasWork: { _ in true }, probes: { _ in false }) == 0)
        #expect(unproven.pick(counts: [0: 1], now: 0, hasWork: { _ in true }, probes: { _ in false }) == nil)
        #expect(unproven.pick(counts: [0: 1], now: 0, hasWork: { _ in true }, probes: { _ in true }) == 0)
        #expect(!unproven.confirmedMayTakeOneMore(counts: [:], now: 0) && Self.mirrors(1).confirmedMayTakeOneMore(counts: [:], now: 0))
    }
}
