@testable import ContentDownloads
import Testing

/// A resumed attempt ramps up on a few connections again: its first estimates take the rate the download held
/// before the pause (``TransferPace/carried``), not the ramp's fraction of it; the carried rate is only a floor.
@Suite("TransferPace across a pause")
struct TransferPaceResumeTests {
    /// Feeds `pace` a steady first attempt of 8 MB/s for 20 s (its count settled from the start), then stops it.
    static func pausedAfterASteadyAttempt(_ pace: inout TransferPace) -> Int64 {
        pace.start(at: 0, bytes: 0)
        var time = 0.0, bytes: Int64 = 0
        while time < 20 {
            time += 0.1
            bytes += 800_000
            pace.record(told: bytes, fetched: bytes, at: time)
        }
        pace.stop()
        return bytes
    }

    /// The first half second of a resumed attempt on 4 connections of 0.5 MB/s each (the outlook says the 2 MB/s
    /// they hold): the estimates of `pace` for `remaining` bytes beyond `onDisk`.
    static func resumedRamp(_ pace: inout TransferPace, onDisk: Int64, remaining: Int64, perSecond: Int64 = 2_000_000) -> [Double] {
        pace.start(at: 25, bytes: onDisk)
        var time = 25.0, bytes = onDisk
        var estimates: [Double] = []
        for _ in 0..<5 {
            time += 0.1
            bytes += perSecond / 10
            pace.record(told: bytes, fetched: bytes, outlook: Double(perSecond), at: time)
            estimates.append(pace.timeRemaining(total: onDisk + remaining, counted: bytes, at: time))
        }
        return estimates
    }

    @Test func aResumedAttemptIsEstimatedAtTheRateTheDownloadHad() {
        var pace = TransferPace()
        let onDisk = Self.pausedAfterASteadyAttempt(&pace)
        #expect(abs(pace.carried - 8_000_000) < 400_000, "carried \(pace.carried)")
        let estimates = Self.resumedRamp(&pace, onDisk: onDisk, remaining: 200_000_000)
        let known = estimates.filter { $0 >= 0 }
        #expect(!known.isEmpty)
        // 200 MB at the 8 MB/s the download held: 25 s (the ramp's 2 MB/s alone says 100 s).
        #expect(known.allSatisfy { abs($0 - 25) <= 25 * 0.1 }, "\(estimates)")

        var fresh = TransferPace()
        let unaided = Self.resumedRamp(&fresh, onDisk: onDisk, remaining: 200_000_000).filter { $0 >= 0 }
        #expect(!unaided.isEmpty && unaided.allSatisfy { $0 > 75 }, "without a previous attempt: \(unaided)")
    }

    /// A resumed attempt that runs faster than the download did is estimated at its own rate: the carried rate
    /// never lengthens an estimate.
    @Test func theCarriedRateIsOnlyAFloor() {
        var pace = TransferPace()
        let onDisk = Self.pausedAfterASteadyAttempt(&pace)
        let estimates = Self.resumedRamp(&pace, onDisk: onDisk, remaining: 200_000_000, perSecond: 20_000_000).filter { $0 >= 0 }
        #expect(!estimates.isEmpty && estimates.allSatisfy { $0 <= 10 * 1.1 }, "\(estimates)")
    }

    /// After a restart the process has no previous attempt: the last checkpoint's journaled estimate gives the rate.
    @Test func aRestartCarriesTheRateOfTheJournaledEstimate() {
        var pace = TransferPace()
        let onDisk: Int64 = 160_000_000
        pace.carryIfNone(journaled: 30, left: 240_000_000)  // 8 MB/s when the process was killed
        #expect(pace.carried == 8_000_000)
        pace.carryIfNone(journaled: 5, left: 240_000_000)  // only when none is carried
        #expect(pace.carried == 8_000_000)
        let estimates = Self.resumedRamp(&pace, onDisk: onDisk, remaining: 200_000_000).filter { $0 >= 0 }
        #expect(!estimates.isEmpty && estimates.allSatisfy { abs($0 - 25) <= 25 * 0.1 }, "\(estimates)")

        var unknown = TransferPace()
        unknown.carryIfNone(journaled: -1, left: 240_000_000)  // no estimate was journaled
        #expect(unknown.carried == 0)
    }

    /// A download restarted under a lower cap is not estimated at the rate it had: the carried rate is taken at
    /// most at the attempt's cap.
    @Test func aCarriedRateAboveTheCapIsTakenAtTheCap() {
        var pace = TransferPace()
        let onDisk = Self.pausedAfterASteadyAttempt(&pace)  // 8 MB/s before
        pace.cap = 2_000_000
        let estimates = Self.resumedRamp(&pace, onDisk: onDisk, remaining: 200_000_000, perSecond: 1_000_000).filter { $0 >= 0 }
        // 200 MB at the 2 MB/s cap: 100 s at least (the carried 8 MB/s would say 25 s).
        #expect(!estimates.isEmpty && estimates.allSatisfy { $0 >= 100 * 0.9 }, "\(estimates)")
    }
}

/// Once a resumed attempt's count settles, its first seconds run below the rate it then holds (frames wait for
/// placement, and what follows arrives in a burst later): until the long window spans its seconds, the carried rate
/// is the floor of the estimate; after that, the window alone decides.
@Suite("TransferPace after a resume, once the count settles")
struct TransferPaceSettledResumeTests {
    /// A resumed attempt whose ramp ends at 26 s, then `seconds` of bytes in place at `perSecond` (the network the
    /// same): the estimates for 200 MB beyond what was on disk, one a second.
    static func settled(_ pace: inout TransferPace, onDisk: Int64, seconds: Int, perSecond: Int64) -> [Double] {
        _ = TransferPaceResumeTests.resumedRamp(&pace, onDisk: onDisk, remaining: 200_000_000)
        var time = 25.5, bytes = onDisk + 1_000_000
        var estimates: [Double] = []
        for step in 1...(seconds * 10) {
            time += 0.1
            bytes += perSecond / 10
            pace.record(told: bytes, fetched: bytes, at: time)
            if step % 10 == 0 { estimates.append(pace.timeRemaining(total: onDisk + 200_000_000, counted: bytes, at: time)) }
        }
        return estimates
    }

    @Test func aSlowStartAfterTheRampIsEstimatedAtTheCarriedRateUntilTheWindowSpans() {
        var pace = TransferPace()
        let onDisk = TransferPaceResumeTests.pausedAfterASteadyAttempt(&pace)  // 8 MB/s before the pause
        // 8 s at 5 MB/s: what is left is 200 MB − 1 MB − 5 MB a second, estimated at the 8 MB/s carried.
        let estimates = Self.settled(&pace, onDisk: onDisk, seconds: 8, perSecond: 5_000_000)
        let checked = estimates.dropFirst(3)  // the window's first two seconds go to the settling network rate
        #expect(!checked.isEmpty)
        for (index, estimate) in zip(checked.indices, checked) {
            let left = Double(200_000_000 - 1_000_000 - 5_000_000 * (index + 1))
            #expect(abs(estimate - left / 8_000_000) <= left / 8_000_000 * 0.05, "\(index + 1) s: \(estimate) s; \(estimates)")
        }

        var fresh = TransferPace()
        let unaided = Self.settled(&fresh, onDisk: onDisk, seconds: 8, perSecond: 5_000_000).dropFirst(3)
        #expect(unaided.allSatisfy { $0 > 30 }, "without a previous attempt, the 5 MB/s measured: \(Array(unaided))")
    }

    @Test func onceTheWindowSpansItsSecondsTheAttemptsOwnRateDecides() {
        var pace = TransferPace()
        let onDisk = TransferPaceResumeTests.pausedAfterASteadyAttempt(&pace)
        // 14 s at 5 MB/s: the window spans its 10 s, and 200 − 1 − 70 = 129 MB at 5 MB/s is 25.8 s.
        let last = Self.settled(&pace, onDisk: onDisk, seconds: 14, perSecond: 5_000_000).last ?? -1
        #expect(abs(last - 25.8) <= 25.8 * 0.05, "\(last)")
    }
}
