@testable import ContentDownloads
import PropertyBased
import Testing

/// An attempt whose bytes come in bursts around a rate it holds, from synthetic samples: a chunk plan's connections
/// pause while their frames wait for placement and then deliver what they held at once (a wide-area proxy releases
/// what it buffered for them), so the network and the bytes in place alternate between a near stop and a catch-up a
/// few seconds apart. The estimate follows the rate the attempt holds, not the phase of the cycle.
@Suite("TransferPace bursts")
struct TransferPaceBurstTests {
    /// One simulated attempt from `onDisk` with `remaining` bytes left at `rate` bytes a second on average: every
    /// `period` seconds the network brings a tenth of the rate for `paused` of the period, then the rest of the period's
    /// bytes; the bytes in place follow `lag` ticks behind; the connection count grows for the first 2 s (the outlook
    /// says the rate). Every 0.1 s the pace records and the estimate is kept. Returns the estimates (with the bytes
    /// in place then) and the time the last byte was in place.
    static func attempt(
        rate: Double, remaining: Int64, onDisk: Int64, period: Double, paused: Double, phase: Double, lag: Int
    ) -> (estimates: [(time: Double, placed: Int64, eta: Double)], end: Double) {
        var pace = TransferPace()
        pace.start(at: 0, bytes: onDisk)
        let total = onDisk + remaining
        var network: [Double] = [Double(onDisk)], time = 0.0
        var estimates: [(time: Double, placed: Int64, eta: Double)] = []
        let pausedRate = rate / 10, burstRate = (rate * period - pausedRate * paused * period) / ((1 - paused) * period)
        while min(Double(total), network[max(0, network.count - 1 - lag)]) < Double(total), time < 10_000 {
            time += 0.1
            let inCycle = (time + phase * period).truncatingRemainder(dividingBy: period) / period
            network.append(network.last! + (inCycle < paused ? pausedRate : burstRate) / 10)
            let fetched = Int64(min(Double(total), network.last!))
            let placed = Int64(min(Double(total), network[max(0, network.count - 1 - lag)]))
            pace.record(told: placed, fetched: fetched, outlook: time <= 2 ? rate : 0, at: time)
            estimates.append((time, placed, pace.timeRemaining(total: total, counted: placed, at: time)))
        }
        return (estimates, time)
    }

    /// Any rate, cycle (1–2.5 s, paused for 20–50 % of it) and phase, from the start or a resume: from 8 s into the
    /// attempt (the ramp behind, and the bytes in place since it span two of the longest cycles) while at least
    /// 10 s are left, every estimate is within ±25 % of the time really left.
    @Test func burstsOfPausedConnectionsDoNotSwingTheEstimate() async {
        await propertyCheck(
            input: Gen.int(in: 1_000_000...20_000_000), Gen.int(in: 30...120), Gen.int(in: 10...25), Gen.int(in: 20...50),
            Gen.int(in: 0...99), Gen.int(in: 0...1)
        ) { rate, seconds, periodTenths, pausedPercent, phasePercent, resumed in
            let run = Self.attempt(
                rate: Double(rate), remaining: Int64(rate) * Int64(seconds), onDisk: Int64(resumed) * Int64(rate) * 20,
                period: Double(periodTenths) / 10, paused: Double(pausedPercent) / 100, phase: Double(phasePercent) / 100, lag: 3)
            let judged = run.estimates.filter { $0.time >= 8 && run.end - $0.time >= 10 }
            let wrong = judged.filter { abs($0.eta - (run.end - $0.time)) > (run.end - $0.time) * 0.25 }
            #expect(!judged.isEmpty)
            #expect(wrong.isEmpty, "\(wrong.count) of \(judged.count) off by more than 25 % (end \(run.end) s): \(wrong.prefix(4))")
        }
    }
}
