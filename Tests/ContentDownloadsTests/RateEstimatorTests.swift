import ContentDownloads
import PropertyBased
import Testing

/// The estimator fed synthetic samples (byte counts at given times): what it says, never how fast anything is.
@Suite("RateEstimator and retry delays")
struct RateEstimatorTests {
    @Test func constantRateGivesRemainingOverRate() async {
        await propertyCheck(input: Gen.int(in: 1_000...50_000_000), Gen.int(in: 0...1_000_000_000)) { rate, onDisk in
            var estimator = RateEstimator()
            estimator.start(at: 100, bytes: Int64(onDisk))
            var bytes = Int64(onDisk)
            for step in 1...40 {  // 20 s of samples every 0.5 s
                bytes += Int64(rate / 2)
                estimator.record(bytes: bytes, at: 100 + Double(step) * 0.5)
            }
            let measured = estimator.rate ?? 0
            #expect(abs(measured - Double(rate / 2 * 2)) <= Double(rate) * 0.01 + 2)
            let total = bytes + Int64(rate) * 10
            let eta = estimator.timeRemaining(total: total, counted: bytes, at: 120)
            #expect(abs(eta - Double(total - bytes) / measured) < 0.001)
        }
    }

    @Test func knownFromTheFirstNewBytesUnknownAfterAStallAndWhenStopped() async {
        await propertyCheck(input: Gen.int(in: 1_000...10_000_000), Gen.double(in: 0.2...0.5)) { rate, first in
            var estimator = RateEstimator()
            estimator.start(at: 0, bytes: 0)
            #expect(estimator.timeRemaining(total: 1000, counted: 0, at: first) == -1)  // nothing fetched yet
            estimator.record(bytes: Int64(rate) / 20, at: 0.05)
            #expect(estimator.timeRemaining(total: 1000, counted: 0, at: 0.05) == -1)  // one packet tells nothing
            estimator.record(bytes: Int64(Double(rate) * first), at: first)
            #expect(estimator.timeRemaining(total: Int64(rate) * 100, counted: 0, at: first) > 0)
            estimator.record(bytes: Int64(rate) * 3, at: 3)
            #expect(estimator.timeRemaining(total: Int64(rate) * 100, counted: 0, at: 3) > 0)
            estimator.record(bytes: Int64(rate) * 3, at: 9)  // no new bytes for 6 s
            #expect(estimator.timeRemaining(total: Int64(rate) * 100, counted: 0, at: 9) == -1)  // stalled
            estimator.stop()
            #expect(estimator.timeRemaining(total: Int64(rate) * 100, counted: 0, at: 9.5) == -1)  // paused
        }
    }

    /// After a restart (a resume, a new process) the estimate is the new attempt's: bytes on disk at its start
    /// never count, however many, and neither does the rate the attempt before it had.
    @Test func aRestartCountsOnlyItsOwnBytes() async {
        await propertyCheck(
            input: Gen.int(in: 100_000...20_000_000), Gen.int(in: 1...20), Gen.int(in: 10...95)
        ) { rate, slowdown, percentDone in
            let total = Int64(rate) * 200
            let onDisk = total * Int64(percentDone) / 100
            var estimator = RateEstimator()
            estimator.start(at: 0, bytes: 0)  // the attempt before: fast
            for step in 1...50 { estimator.record(bytes: Int64(step) * Int64(rate) / 10, at: Double(step) / 10) }
            estimator.stop()
            let slow = Double(rate) / Double(slowdown)
            estimator.start(at: 1_000, bytes: onDisk)  // the restart: slower, from what the disk holds
            var bytes = onDisk
            for step in 1...5 {
                bytes = onDisk + Int64(slow * Double(step) / 10)
                estimator.record(bytes: bytes, at: 1_000 + Double(step) / 10)
            }
            let eta = estimator.timeRemaining(total: total, counted: bytes, at: 1_000.5)
            let truth = Double(total - bytes) / slow
            #expect(abs(eta - truth) <= truth * 0.02 + 0.01, "ETA \(eta) s, truth \(truth) s")
        }
    }

    /// Whatever came before, once the rate has held for the window the estimate is the remaining bytes at that
    /// rate: a change (a connection dropped, the last chunks on one connection) shows within the window.
    @Test func theEstimateFollowsTheCurrentRateWithinTheWindow() async {
        await propertyCheck(
            input: Gen.int(in: 10_000...20_000_000).array(of: 1...6), Gen.int(in: 10_000...20_000_000)
        ) { earlier, current in
            var estimator = RateEstimator()
            estimator.start(at: 0, bytes: 0)
            var time = 0.0, bytes: Int64 = 0
            for rate in earlier + [current] {
                for _ in 0..<40 {  // 4 s at each rate, samples every 0.1 s
                    time += 0.1
                    bytes += Int64(rate / 10)
                    estimator.record(bytes: bytes, at: time)
                }
            }
            let total = bytes + Int64(current) * 30
            let eta = estimator.timeRemaining(total: total, counted: bytes, at: time)
            #expect(abs(eta - 30) <= 30 * 0.02, "ETA \(eta) s for 30 s at the current rate")
        }
    }

    /// A download whose bytes arrive in uneven pieces (±20 % per sample) around a steady rate, interrupted once
    /// and restarted from what it kept: from 10 % on, each estimate is within ±25 % of the running time really
    /// left, and -1 only in an attempt's first moments.
    @Test func noisyDownloadWithARestartStaysWithinAQuarterOfTheTruth() async {
        await propertyCheck(
            input: Gen.int(in: 200_000...20_000_000), Gen.int(in: 20...120), Gen.int(in: 15...90), Gen.uint64()
        ) { rate, seconds, restartPercent, seed in
            var noise = SplitMix(seed: seed)
            let total = Int64(rate) * Int64(seconds)
            let restartAt = total * Int64(restartPercent) / 100
            var estimates: [(bytes: Int64, time: Double, attemptAge: Double, eta: Double)] = []
            var estimator = RateEstimator()
            var time = 0.05, bytes: Int64 = 0, attemptStart = time  // the request's round trip before the response
            var down: Double?  // when the attempt was killed; it starts again 5 s later
            estimator.start(at: time, bytes: 0)
            while bytes < total {
                if down == nil, bytes >= restartAt {  // killed: what was on disk stays, a new attempt starts later
                    down = time
                    estimator = RateEstimator()
                    time += 5
                    attemptStart = time
                    estimator.start(at: time, bytes: bytes)
                }
                time += 0.1
                bytes = min(total, bytes + Int64(Double(rate) / 10 * (0.8 + 0.4 * Double(noise.next() >> 11) / Double(1 << 53))))
                estimator.record(bytes: bytes, at: time)
                estimates.append((bytes, time, time - attemptStart, estimator.timeRemaining(total: total, counted: bytes, at: time)))
            }
            let end = time
            let judged = estimates.filter { $0.bytes >= total / 10 && $0.bytes < total }
            let wrong = judged.filter { sample in
                let truth = end - sample.time - (down.map { sample.time <= $0 ? 5 : 0 } ?? 0)
                return sample.eta >= 0 && truth > 1 && abs(sample.eta - truth) > truth * 0.25
            }
            #expect(wrong.isEmpty, "\(wrong.count) estimates off by more than 25 %: \(wrong.prefix(3))")
            let unknown = judged.filter { $0.eta < 0 && $0.attemptAge > 0.25 }
            #expect(unknown.isEmpty, "-1 after an attempt's first moments: \(unknown.prefix(3))")
        }
    }

    @Test func anInitialBurstDoesNotDominateTheEstimate() async {
        // Loopback under a rate cap: socket buffers deliver a burst in the first 50 ms, then the cap holds.
        await propertyCheck(input: Gen.int(in: 100_000...10_000_000), Gen.int(in: 2...40)) { rate, burstFactor in
            var estimator = RateEstimator()
            estimator.start(at: 0, bytes: 0)
            var bytes = Int64(rate) * Int64(burstFactor) / 10  // burst: up to 4 s worth of data at once
            estimator.record(bytes: bytes, at: 0.05)
            for step in 1...20 {  // then the steady rate, sampled every 0.5 s for 10 s
                bytes += Int64(rate / 2)
                estimator.record(bytes: bytes, at: 0.05 + Double(step) * 0.5)
            }
            let remaining = Int64(rate) * 10  // 10 s of data left at the true rate
            let eta = estimator.timeRemaining(total: bytes + remaining, counted: bytes, at: 10.05)
            #expect(eta >= 9 && eta <= 10.5, "ETA \(eta) s for 10 s of data after a \(burstFactor / 10)-second burst")
        }
    }

    @Test func retryDelaysGrowAreCappedAndHonourRetryAfter() async {
        await propertyCheck(input: Gen.int(in: 1...30), Gen.double(in: -0.2...0.2)) { attempt, jitter in
            let options = DownloadOptions()
            let delay = options.retryDelay(attempt: attempt, retryAfter: nil, jitter: jitter)
            #expect(delay <= options.retryMaxDelay * 1.2 + 1e-9)
            #expect(delay >= min(options.retryMaxDelay, options.retryBaseDelay) * 0.8 - 1e-9)
            let next = options.retryDelay(attempt: attempt + 1, retryAfter: nil, jitter: jitter)
            #expect(next >= delay - 1e-9)
            #expect(options.retryDelay(attempt: attempt, retryAfter: 7, jitter: jitter) == 7)
            #expect(options.retryDelay(attempt: attempt, retryAfter: 3600, jitter: jitter) == options.retryAfterCap)
        }
    }
}
