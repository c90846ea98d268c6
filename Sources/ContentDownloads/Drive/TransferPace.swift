/// How fast one transfer attempt moves, and so its `timeRemaining` (-1 only while nothing is known).
///
/// Two rates over the same sliding window (``RateEstimator``): the bytes the attempt takes off the network (a chunk
/// plan's frames still arriving count, so it follows the connections running now and is known 0.2 s after the
/// first bytes), and the bytes a client is told (a chunk plan's chunks in place). The slower decides once both are
/// known (the install's once it spans the window: its first chunks lag the network by the pipeline's depth): a
/// download whose verifying and writing keep up goes at the network's pace, one whose install is behind
/// (a slow disk, a busy CPU) at the install's, and a chunk plan's frames in flight never make the rest look shorter
/// than it is. Neither counts bytes that were on disk when the attempt began. At the end, once every chunk is handed
/// out, the slowest connection decides: the time it needs for the chunks it holds (``drain``) is the least left.
///
/// An attempt's ramp is the exception: while a chunk plan's connection count still grows (a start, a resume, a
/// restart), the window holds seconds on a few connections and measures a fraction of the rate the attempt will
/// hold. Then the network decides, at no less than the rate the connections will reach (the scheduler's outlook:
/// the rate per connection times the count it grows to, ``ramp``); once the count settles, at the rate measured
/// since (``settling``, known half a second later), until the bytes in place since span two seconds (below).
///
/// Once the count is settled, longer windows decide (from two seconds after they start on, once the bytes in place over
/// ``steady`` span two seconds): a chunk plan's connections pause while the frames they bring wait for placement and
/// then deliver what they held (and a wide-area proxy releases what it buffered for them) at once, so in place and on
/// the network the bytes come in bursts a few seconds apart, and a 3 s window swings from half to twice the rate the
/// attempt holds. The longer windows span several of those cycles; they start when the count settles (or, without a
/// ramp, at the first bytes in place after the attempt's start), so neither the ramp's slower seconds nor the bytes the
/// pipeline held before count. What is left comes in two parts: the bytes still to fetch, at the network's rate over
/// the long window (``steadyNetwork``) and then the frames fetched and not in place yet, or everything not in place
/// yet, each at the rate the install places bytes while it works (``placing``: its busy seconds, not its waits for the
/// network); the longer of the two is the time left. So at the end, when the network is done and the last frames
/// fetched wait for placement (8–11 MB at 8 connections), they count at the install's speed, not the network's (the
/// last 2–3 s read 1.3–1.7 times too long when everything left counted at the rate of the bytes in place); and on a
/// slow disk the install's part decides. While the install stalls for ``RateEstimator/stallAfter`` the windows above
/// decide. Until the network's window spans its ``steadyWindow``, the previous attempt's rate (``carried``) is its
/// floor too: a resumed attempt's
/// first seconds after the count settles run below the rate it then holds (its connections' first frames wait for
/// placement while the ones that follow queue in the socket buffers, and arrive in a burst seconds later), so a window
/// that holds only them read 1.2–1.5 times the time left after a resume or a restart in `tools/bench-eta`.
/// (Starting it later, once what was fetched at the settling is in place, made the estimates no truer: the median
/// error went from 9–10 % to 13–14 % after a resume in `tools/bench-eta`.)
struct TransferPace: Sendable {
    /// Seconds the bytes in place are measured over once the count is settled: several burst cycles.
    static let steadyWindow = 10.0

    /// The bytes off the network.
    var fetched = RateEstimator()
    /// The bytes told (in place, or written for a whole archive).
    var told = RateEstimator()
    /// The seconds the slowest running connection needed for what it holds, and when that was said (0: not the end yet).
    var drain: (seconds: Double, at: Double) = (0, 0)
    /// The newest outlook while the connection count grew (bytes a second; 0: none this attempt).
    var ramp: Double = 0
    /// The network's rate since the count settled (`nil` while it grows, or without a ramp this attempt).
    var settling: RateEstimator?
    /// The bytes in place over ``steadyWindow`` since the count settled (`nil` while it grows, or before the
    /// attempt's first bytes in place without a ramp).
    var steady: RateEstimator?
    /// The bytes off the network over ``steadyWindow``, over the same seconds as ``steady``.
    var steadyNetwork: RateEstimator?
    /// The bytes a second the install places while it works (bytes in place this attempt over the seconds its
    /// busiest stage worked; 0: not known yet, or a whole archive).
    var placing: Double = 0
    /// The bytes in place when the attempt started.
    var startBytes: Int64 = 0
    /// The rate the download's previous attempt held when it stopped (bytes a second; 0: none in this process). A
    /// resumed attempt ramps up on a few connections again, and until its own count settles its network rate is
    /// taken as at least this: its first estimates read the rate the download had, not the ramp's fraction of it.
    var carried: Double = 0
    /// The attempt's receive cap (bytes a second; 0: none): a carried rate above it is taken at the cap (a download
    /// restarted under a lower cap is not estimated at the rate it had before).
    var cap: Double = 0

    /// Starts an attempt at `time` (its request, then again when its response starts the bytes) from `bytes`.
    mutating func start(at time: Double, bytes: Int64) {
        fetched.start(at: time, bytes: bytes)
        told.start(at: time, bytes: bytes)
        startBytes = bytes
        ramp = 0
        settling = nil
        steady = nil
        steadyNetwork = nil
        placing = 0
    }

    /// Takes the rate a journaled estimate implies (`left` bytes in `seconds`, the last checkpoint's) as the
    /// carried rate when this process has none: the first attempt after a restart (a kill, a reboot) ramps like a
    /// resumed one, and the attempt that was interrupted journaled how fast it went.
    mutating func carryIfNone(journaled seconds: Double, left: Int64) {
        guard carried == 0, seconds > 0, left > 0 else { return }
        carried = Double(left) / seconds
    }

    /// Ends the attempt (pause, failure, verified): unknown until the next start, which carries its rate.
    mutating func stop() {
        if let rate = steady?.rate ?? settling?.rate ?? told.rate, rate > 0 { carried = rate }
        fetched.stop()
        told.stop()
        drain = (0, 0)
        ramp = 0
        settling = nil
        steady = nil
        steadyNetwork = nil
        placing = 0
    }

    /// Records the attempt's counters at `time`, with the scheduler's `outlook` (0: the connection count is settled)
    /// and the install's `placing` rate (0: not known).
    mutating func record(
        told bytes: Int64, fetched network: Int64, drain seconds: Double = 0, outlook: Double = 0, placing: Double = 0,
        at time: Double
    ) {
        fetched.record(bytes: network, at: time)
        told.record(bytes: bytes, at: time)
        drain = (seconds, time)
        if placing > 0 { self.placing = placing }
        if outlook > 0 {
            ramp = outlook
            settling = nil
            steady = nil
            steadyNetwork = nil
        } else if ramp > 0, settling == nil {
            settling = RateEstimator(minimumSpan: 0.5)
            settling?.start(at: time, bytes: network)
            steady = Self.steadyEstimator(from: bytes, at: time)
            steadyNetwork = Self.steadyEstimator(from: network, at: time)
        } else if ramp == 0, steady == nil, told.fetchedBytes != nil, bytes > startBytes {
            steady = Self.steadyEstimator(from: bytes, at: time)  // no ramp: from the first bytes in place
            steadyNetwork = Self.steadyEstimator(from: network, at: time)
        }
        settling?.record(bytes: network, at: time)
        steady?.record(bytes: bytes, at: time)
        steadyNetwork?.record(bytes: network, at: time)
    }

    /// An estimator over ``steadyWindow``, known two seconds after `time`, from `bytes`.
    private static func steadyEstimator(from bytes: Int64, at time: Double) -> RateEstimator {
        var estimator = RateEstimator(window: steadyWindow, minimumSpan: 2)
        estimator.start(at: time, bytes: bytes)
        return estimator
    }

    /// The carried rate, at most the attempt's cap.
    private var carriedFloor: Double { cap > 0 ? min(carried, cap) : carried }

    /// Whether the attempt ramps: its count grows, or settled less than a window ago.
    var isRamping: Bool { ramp > 0 && settling?.spansWindow != true }

    /// Whether an estimate is known (as of the newest samples).
    var isKnown: Bool { fetched.rate != nil || told.rate != nil || ramp > 0 }

    /// Seconds until the attempt has `total` bytes in, of which `counted` are told now; -1 if unknown.
    func timeRemaining(total: Int64, counted: Int64, at time: Double) -> Double {
        let end = drain.seconds > 0 ? max(0, drain.seconds - (time - drain.at)) : downloadTimeRemainingUnknown
        // Settled, and the bytes in place span two seconds since:
        if let steady, steady.rate != nil, let steadyNetwork {
            // Until the network's window spans its seconds, at least the previous attempt's rate (below).
            let floor = steadyNetwork.spansWindow ? 0 : carriedFloor
            let toFetch = steadyNetwork.timeRemaining(total: total, counted: counted, at: time, atLeast: floor)
            // The frames fetched and not in place are placed after the network's last byte at the latest; the
            // install, when it is the slower, needs its time for everything not in place.
            let waiting = Double(max(0, (fetched.fetchedBytes ?? counted) - counted))
            let notPlaced = Double(max(0, total - counted))
            let (afterFetch, toPlace) = placing > 0 ? (waiting / placing, notPlaced / placing) : (0, 0)
            // A stall of the install, or of the network: the windows below say what is known.
            if toFetch >= 0, steady.timeRemaining(total: total, counted: counted, at: time) >= 0 {
                return max(toFetch + afterFetch, toPlace, end)
            }
        }
        if isRamping {  // the rate since the count settled once known, else at least the outlook
            let network = if let settling, settling.rate != nil {
                settling.timeRemaining(total: total, counted: counted, at: time)
            } else {
                fetched.timeRemaining(total: total, counted: counted, at: time, atLeast: max(ramp, carriedFloor))
            }
            return max(network, end)
        }
        // Before anything of this attempt settled, at least the previous attempt's rate.
        let floor = steady == nil && settling == nil ? carriedFloor : 0
        let network = fetched.timeRemaining(total: total, counted: counted, at: time, atLeast: floor)
        let install = told.spansWindow ? told.timeRemaining(total: total, counted: counted, at: time) : downloadTimeRemainingUnknown
        let estimate = max(network, install)  // the slower when both are known, else the one known (-1 is below any)
        return max(estimate, end)
    }
}
