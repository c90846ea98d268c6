import ContentDownloads
import PropertyBased
import Testing

@Suite("RateEstimator and retry delays")
struct RateEstimatorTests {
    @Test func constantRateConvergesAndTimeRemainingIsRemainingOverRate() async {
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
            let remaining = Int64(rate) * 10
            let eta = estimator.timeRemaining(remaining: remaining, at: 120)
            #expect(abs(eta - Double(remaining) / measured) < 0.001)
        }
    }

    @Test func unknownDuringWarmupAfterStallAndWhenStopped() async {
        await propertyCheck(input: Gen.int(in: 1_000...10_000_000)) { rate in
            var estimator = RateEstimator()
            estimator.start(at: 0, bytes: 0)
            estimator.record(bytes: Int64(rate), at: 1)
            #expect(estimator.timeRemaining(remaining: 1000, at: 1) == -1)  // first seconds
            estimator.record(bytes: Int64(rate) * 3, at: 3)
            #expect(estimator.timeRemaining(remaining: 1000, at: 3) > 0)
            estimator.record(bytes: Int64(rate) * 3, at: 9)  // no new bytes for 6 s
            #expect(estimator.timeRemaining(remaining: 1000, at: 9) == -1)  // stalled
            estimator.stop()
            #expect(estimator.timeRemaining(remaining: 1000, at: 9.5) == -1)  // paused
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
            let eta = estimator.timeRemaining(remaining: remaining, at: 10.05)
            #expect(eta >= 5 && eta <= 10.5, "ETA \(eta) s for 10 s of data after a \(burstFactor / 10)-second burst")
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
