@testable import ContentDownloads
import PropertyBased
import Testing

/// An attempt's first seconds from synthetic samples: the connection count of a chunk plan grows (the real
/// ``ConnectionTuner`` fed as the scheduler feeds it), each connection capped, so the bytes so far measure a fraction
/// of the rate the attempt will hold. What the estimate says then, and that it comes back to the window's rates.
@Suite("TransferPace ramp")
struct TransferPaceRampTests {
    /// One simulated attempt: `remaining` bytes (beyond `onDisk`) over connections capped at `perConnection` bytes a
    /// second each, a new connection's first byte `setup` seconds after it opens, the install `lag` ticks behind
    /// (always busy: it places bytes at the rate they reached it over the last second).
    /// Every 0.1 s: the tuner observes, the pace records (with the tuner's outlook unless `withoutOutlook`), and the
    /// estimate is kept with the time then. Returns the estimates and the time the install had the last byte.
    static func attempt(
        perConnection: Double, remaining: Int64, onDisk: Int64, setup: Double, lag: Int = 3, withoutOutlook: Bool = false
    ) -> (estimates: [(time: Double, eta: Double)], end: Double) {
        var tuner = ConnectionTuner(initial: 4, maximum: 16)
        var pace = TransferPace()
        pace.start(at: 0, bytes: onDisk)
        var opened: [Double] = []
        var delivered: [Double] = [], fetched = [onDisk], time = 0.0
        var estimates: [(time: Double, eta: Double)] = []
        let total = onDisk + remaining
        while fetched[max(0, fetched.count - 1 - lag)] < total, time < 10_000 {  // until the install has it all
            time += 0.1
            while opened.count < tuner.target { opened.append(time - 0.1); delivered.append(0) }
            var bytes = fetched.last!
            for index in opened.indices where time - opened[index] > setup {
                let share = perConnection * min(0.1, time - opened[index] - setup)
                delivered[index] += share
                bytes += Int64(share)
            }
            fetched.append(min(total, bytes))
            tuner.observe(bytes: fetched.last!, now: time, busy: true)
            let rates = opened.indices.compactMap { index -> Double? in
                let since = time - opened[index] - setup
                return since >= 0.5 ? delivered[index] / since : nil
            }
            let outlook = withoutOutlook ? 0 : tuner.outlook(connectionRates: rates, busy: fetched.last! < total, cap: 0)
            let told = fetched[max(0, fetched.count - 1 - lag)]
            let placing = fetched.count > 11 ? Double(told - fetched[max(0, fetched.count - 11 - lag)]) : 0
            pace.record(told: told, fetched: fetched.last!, outlook: outlook, placing: placing, at: time)
            estimates.append((time, pace.timeRemaining(total: total, counted: told, at: time)))
        }
        return (estimates, time)
    }

    /// A resume or a restart at any point, at any per-connection cap: from half a second after the first bytes on,
    /// every estimate is known and within ±25 % of the time really left (while more than a second is left).
    @Test func aRampingAttemptIsEstimatedAtTheRateItWillHold() async {
        await propertyCheck(
            input: Gen.int(in: 100_000...4_000_000), Gen.int(in: 10...120), Gen.int(in: 0...1_000_000_000),
            Gen.int(in: 0...300)
        ) { perConnection, seconds, onDisk, setupMilliseconds in
            let setup = Double(setupMilliseconds) / 1000
            let run = Self.attempt(
                perConnection: Double(perConnection), remaining: Int64(perConnection) * 16 * Int64(seconds),
                onDisk: Int64(onDisk), setup: setup)
            let judged = run.estimates.filter { $0.time >= setup + 0.6 && run.end - $0.time > 1 }
            let wrong = judged.filter { abs($0.eta - (run.end - $0.time)) > (run.end - $0.time) * 0.25 }
            #expect(wrong.isEmpty, "\(wrong.count) of \(judged.count) off by more than 25 % (end \(run.end) s): \(wrong.prefix(4))")
        }
    }

    /// The same attempt measured by the window alone (no outlook) is two to four times too long in its first
    /// seconds: what the outlook is for.
    @Test func withoutTheOutlookTheRampReadsTooLong() {
        let run = Self.attempt(perConnection: Double(512 << 10), remaining: 180 << 20, onDisk: 76 << 20, setup: 0.2, withoutOutlook: true)
        let early = run.estimates.filter { $0.time >= 0.8 && $0.time <= 3 }
        #expect(early.allSatisfy { $0.eta > 1.5 * (run.end - $0.time) }, "\(early)")
    }

    /// Once the count has settled and the window holds only seconds since, the window's rates decide again,
    /// whatever the outlook said: an outlook far too high (a link that saturated sooner) is forgotten, and a
    /// slower install decides as without a ramp.
    @Test func afterTheRampTheWindowDecides() async {
        await propertyCheck(input: Gen.int(in: 1_000_000...20_000_000), Gen.int(in: 2...10), Gen.int(in: 1...4)) { rate, overshoot, behind in
            var pace = TransferPace(), plain = TransferPace()
            pace.start(at: 0, bytes: 0)
            plain.start(at: 0, bytes: 0)
            var time = 0.0, network: Int64 = 0, placed: Int64 = 0
            for tick in 1...100 {  // 10 s: the outlook for the first 2 s, then none
                time += 0.1
                network += Int64(rate / 10)
                placed += Int64(rate / 10 / behind)
                let outlook = tick <= 20 ? Double(rate * overshoot) : 0
                pace.record(told: placed, fetched: network, outlook: outlook, at: time)
                plain.record(told: placed, fetched: network, at: time)
                if tick <= 20 { #expect(pace.isRamping) }
            }
            let total = network + Int64(rate) * 40
            #expect(!pace.isRamping)
            let eta = pace.timeRemaining(total: total, counted: placed, at: time)
            let plainETA = plain.timeRemaining(total: total, counted: placed, at: time)
            #expect(abs(eta - plainETA) <= plainETA * 1e-6, "ETA \(eta) s after a ramp, \(plainETA) s without one")
        }
    }

    /// Right after the count settles the rate since then decides (known half a second later), not the outlook:
    /// a link that saturated at fewer connections than the outlook assumed is told within a second.
    @Test func aSettledCountIsMeasuredFromItsStart() {
        var pace = TransferPace()
        pace.start(at: 0, bytes: 0)
        var time = 0.0, bytes: Int64 = 0
        for tick in 1...30 {  // 3 s at 4 MB/s, the outlook says 16 MB/s until 2 s
            time += 0.1
            bytes += 400_000
            pace.record(told: bytes, fetched: bytes, outlook: tick <= 20 ? 16_000_000 : 0, at: time)
        }
        let eta = pace.timeRemaining(total: bytes + 40_000_000, counted: bytes, at: time)
        #expect(pace.isRamping)
        #expect(abs(eta - 10) < 0.5, "ETA \(eta) s for 40 MB at 4 MB/s")
    }

    /// The tuner's outlook: the mean rate of the connections that have one times the count it grows to, under the
    /// transfer's cap; nothing without work waiting, without a rate, or once the count settled.
    @Test func theOutlookIsTheFullCountAtTheConnectionsRate() async {
        await propertyCheck(input: Gen.int(in: 1_000...10_000_000).array(of: 1...16), Gen.int(in: 0...200_000_000)) { rates, cap in
            var tuner = ConnectionTuner(initial: 4, maximum: 16)
            let mean = Double(rates.reduce(0, +)) / Double(rates.count)
            let expected = cap > 0 ? min(mean * 16, Double(cap)) : mean * 16
            let outlook = tuner.outlook(connectionRates: rates.map(Double.init), busy: true, cap: Int64(cap))
            #expect(abs(outlook - expected) <= expected * 1e-9)
            #expect(tuner.outlook(connectionRates: rates.map(Double.init), busy: false, cap: 0) == 0)
            #expect(tuner.outlook(connectionRates: [], busy: true, cap: 0) == 0)
            for second in 0...6 { tuner.observe(bytes: Int64(second) * 1_000_000, now: Double(second), busy: true) }
            #expect(tuner.outlook(connectionRates: rates.map(Double.init), busy: true, cap: 0) == 0, "settled at \(tuner.target)")
        }
    }
}
