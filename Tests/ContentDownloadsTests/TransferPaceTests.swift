@testable import ContentDownloads
import PropertyBased
import Testing

/// The pace of one attempt from synthetic samples: the slower of the network and the install decides, and at the
/// end the slowest connection's remaining work is the least left.
@Suite("TransferPace")
struct TransferPaceTests {
    /// The install places bytes at a `behind`-th of the network's rate, busy all the time: its pace decides.
    @Test func aSlowerInstallDecides() async {
        await propertyCheck(input: Gen.int(in: 1_000_000...20_000_000), Gen.int(in: 2...5)) { rate, behind in
            var pace = TransferPace()
            pace.start(at: 0, bytes: 0)
            var time = 0.0, network: Int64 = 0, placed: Int64 = 0
            for _ in 0..<50 {  // 5 s: the network at `rate`, the install at a `behind`-th of it
                time += 0.1
                network += Int64(rate / 10)
                placed += Int64(rate / 10 / behind)
                pace.record(told: placed, fetched: network, placing: Double(rate / behind), at: time)
            }
            let total = placed + Int64(rate / behind) * 40  // 40 s left at the install's rate
            let eta = pace.timeRemaining(total: total, counted: placed, at: time)
            #expect(abs(eta - 40) <= 1, "ETA \(eta) s; the install needs 40 s")
        }
    }

    @Test func atTheEndTheSlowestConnectionDecides() {
        var pace = TransferPace()
        pace.start(at: 0, bytes: 0)
        for step in 1...30 { pace.record(told: Int64(step) << 20, fetched: Int64(step) << 20, at: Double(step) / 10) }
        // 1 MiB left at 10 MiB/s, but the connection holding it brings 256 KiB/s: 4 s.
        pace.record(told: 30 << 20, fetched: 31 << 20, drain: 4, at: 3.1)
        #expect(abs(pace.timeRemaining(total: 32 << 20, counted: 30 << 20, at: 3.1) - 4) < 0.01)
        #expect(abs(pace.timeRemaining(total: 32 << 20, counted: 30 << 20, at: 4.1) - 3) < 0.01, "the drain counts down")
        pace.stop()
        #expect(pace.timeRemaining(total: 32 << 20, counted: 30 << 20, at: 4.2) == -1)
    }
}
