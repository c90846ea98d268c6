@testable import ContentDownloads
import PropertyBased
import Testing

/// The last seconds of a chunk plan from synthetic samples: the frames fetched and not yet placed (a few MiB at
/// several connections) count at the install's pace, not the network's. Counted at the network's rate, as all of
/// what was not in place once was, the last 2–3 s of `tools/bench-eta` read 1.3–1.7 times the time left.
@Suite("TransferPace tail")
struct TransferPaceTailTests {
    /// The network brings `rate` bytes a second for `seconds`; `backlog` bytes fetched wait for placement all along
    /// (whole frames queued, partial ones arriving); the install places at `placing` bytes a second while it works,
    /// so once the network is done the backlog is in place `backlog / placing` seconds later. From 3 s after the
    /// first bytes in place (the long window known), while at least a second is left, every estimate is within
    /// ±25 % of the time really left.
    @Test func bytesFetchedAndNotPlacedCountAtTheInstallsPace() async {
        await propertyCheck(
            input: Gen.int(in: 1_000_000...20_000_000), Gen.int(in: 15...60), Gen.int(in: 2...12), Gen.int(in: 10...40)
        ) { rate, seconds, backlogMiB, placingTimes in
            let total = Int64(rate) * Int64(seconds)
            let backlog = min(Int64(backlogMiB) << 20, total / 4)
            let placing = Double(rate) * Double(placingTimes)
            let networkEnd = Double(seconds), end = networkEnd + Double(backlog) / placing
            var pace = TransferPace()
            pace.start(at: 0, bytes: 0)
            var time = 0.0
            var judged = 0
            var wrong: [(time: Double, eta: Double, left: Double)] = []
            while time < end {
                time += 0.1
                let fetched = min(total, Int64(Double(rate) * time))
                let placed = time <= networkEnd
                    ? max(0, fetched - backlog)
                    : min(total, total - backlog + Int64((time - networkEnd) * placing))
                pace.record(told: placed, fetched: fetched, placing: placing, at: time)
                let eta = pace.timeRemaining(total: total, counted: placed, at: time)
                let left = end - time
                guard time >= Double(backlog) / Double(rate) + 3, left >= 1 else { continue }
                judged += 1
                if abs(eta - left) > left * 0.25 { wrong.append((time, eta, left)) }
            }
            #expect(judged > 0)
            #expect(wrong.isEmpty, "\(wrong.count) of \(judged) off by more than 25 %: \(wrong.prefix(4))")
        }
    }

    /// A slow disk: the install, busy all the time, places at half the rate the network could bring; its pace
    /// decides, however far the network got ahead.
    @Test func aSlowInstallDecidesTheRest() {
        var pace = TransferPace()
        pace.start(at: 0, bytes: 0)
        let network = 8_000_000.0, placing = 4_000_000.0
        var time = 0.0
        while time < 20 {
            time += 0.1
            let placed = Int64(placing * time)
            let fetched = min(placed + (16 << 20), Int64(network * time))  // the frame memory holds 16 MiB at most
            pace.record(told: placed, fetched: fetched, placing: placing, at: time)
        }
        let total: Int64 = 200_000_000, placed = Int64(placing * time)
        let eta = pace.timeRemaining(total: total, counted: placed, at: time)
        #expect(abs(eta - Double(total - placed) / placing) < 1, "ETA \(eta) s; the install needs \(Double(total - placed) / placing) s")
    }
}
