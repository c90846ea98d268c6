internal import Synchronization
import Glibc

/// The memory every chunk plan of one engine receives frames into: fixed-size segments
/// (``segmentBytes``), taken by connections as bytes arrive and given back by the verifiers once a frame is
/// decoded, within one budget for the whole engine (``TransferSettings/frameMemoryBytes``).
///
/// Memory follows the bytes in flight — the frames being received and those waiting for a verifier — not the
/// connections times the largest frame. A connection that finds the budget spent pauses
/// (`CURL_WRITEFUNC_PAUSE`: libcurl keeps its bytes) and is resumed when segments come back: giving back wakes
/// the engine loop once after any failed ``take(_:for:force:)`` or ``mayResume()``.
///
/// **Which budget.** While the verifiers are the bottleneck (frames waited for one most of the last fraction of a
/// second, ``busyShare``), more memory would only lengthen their queue: the budget is then ``queuedLimit``, a
/// quarter of it by default. While the network is (the verifiers mostly idle), every connection holds the part of
/// a frame it has received so far, and the whole budget serves them.
///
/// **Progress.** Segments of frames handed to a verifier always come back. When none are handed over, every
/// segment sits in a frame still being received and none can come back; then one connection at a time (the
/// *grant*) may take past the budget until it hands its frame over. So the budget is exceeded by at most one
/// frame (4 MiB) and a segment per connection.
///
/// Taking happens on the transfer thread; giving back on any (the verifiers); the state behind one mutex.
final class FrameMemory: Sendable {
    /// One segment's size.
    static let segmentBytes = 256 << 10
    /// How fast ``busyShare`` forgets, in seconds.
    static let busyMemory = 0.25

    /// Segments that may be taken at once while the network is the bottleneck.
    let limit: Int
    /// Segments that may be taken at once while the verifiers are.
    let queuedLimit: Int

    private struct State {
        /// Segments given back, kept for the next frames (resident).
        var free: [FrameSegment] = []
        /// Segments taken and not given back.
        var inUse = 0
        /// Of those, the segments of frames handed to a verifier.
        var handedOver = 0
        /// The connection allowed past the budget (no segment was handed over when it asked).
        var grant: ObjectIdentifier?
        /// A take failed since the last wake-up.
        var waiting = false
        /// The share of the recent time during which frames waited for a verifier (1 at first: a new download
        /// starts within the smaller budget until the verifiers prove idle).
        var busyShare = 1.0
        /// When ``busyShare`` was brought up to date.
        var busyUpdated = 0.0
        /// The most segments taken at once (tests).
        var peak = 0

        /// Brings ``busyShare`` up to `now`: the time since the last update was busy if frames were handed over.
        mutating func age(to now: Double) {
            let kept = exp(-max(0, now - busyUpdated) / FrameMemory.busyMemory)
            busyShare = busyShare * kept + (handedOver > 0 ? 1 - kept : 0)
            busyUpdated = now
        }
    }

    private let state: Mutex<State>
    private let wake: @Sendable () -> Void
    private let clock: @Sendable () -> Double

    /// A pool of `budgetBytes` (at least one segment), of which `queuedBytes` while the verifiers are the bottleneck;
    /// `wake` wakes the engine loop (any thread); `clock` gives seconds (tests pass their own).
    init(budgetBytes: Int, queuedBytes: Int, clock: @escaping @Sendable () -> Double = { Transfer.now() }, wake: @escaping @Sendable () -> Void) {
        limit = max(1, budgetBytes / Self.segmentBytes)
        queuedLimit = min(limit, max(1, queuedBytes / Self.segmentBytes))
        self.clock = clock
        state = Mutex(State(busyUpdated: clock()))
        self.wake = wake
    }

    deinit {
        for segment in state.withLock({ $0.free }) { segment.release() }
    }

    /// `count` segments for `owner`'s frames, or `nil` when they would pass the budget (the caller pauses until
    /// ``mayResume()``). Past the budget only for the connection that holds the grant, or takes it because nothing
    /// is handed over; `force` takes them regardless (a frame boundary inside one delivery: one segment).
    func take(_ count: Int, for owner: AnyObject, force: Bool = false) -> [FrameSegment]? {
        guard count > 0 else { return [] }
        let id = ObjectIdentifier(owner), now = clock()
        let reused: [FrameSegment]? = state.withLock { state in
            if !force, state.inUse + count > bound(&state, now: now), state.grant != id {
                guard state.handedOver == 0, state.grant == nil else {
                    state.waiting = true
                    return nil
                }
                state.grant = id
            }
            state.inUse += count
            state.peak = max(state.peak, state.inUse)
            let kept = min(count, state.free.count)
            defer { state.free.removeLast(kept) }
            return Array(state.free.suffix(kept))
        }
        guard var segments = reused else { return nil }
        while segments.count < count { segments.append(FrameSegment.make()) }
        return segments
    }

    /// Whether a paused connection may try again: room within the budget, or nothing handed over and the grant
    /// free. When not, the next segments given back wake the loop (as after a failed ``take(_:for:force:)``).
    func mayResume() -> Bool {
        let now = clock()
        return state.withLock { state in
            let room = state.inUse < bound(&state, now: now) || (state.handedOver == 0 && state.grant == nil)
            if !room { state.waiting = true }
            return room
        }
    }

    /// The segments that may be taken now (see "Which budget").
    private func bound(_ state: inout State, now: Double) -> Int {
        state.age(to: now)
        return state.busyShare > 0.5 ? queuedLimit : limit
    }

    /// `owner` handed a frame of `count` segments to a verifier (it gives them back) and gives up the grant.
    func handOver(_ count: Int, from owner: AnyObject) {
        let id = ObjectIdentifier(owner), now = clock()
        state.withLock { state in
            state.age(to: now)
            state.handedOver += count
            if state.grant == id { state.grant = nil }
        }
    }

    /// `owner` gives up the grant without handing a frame over (its request ended).
    func dropGrant(of owner: AnyObject) {
        let id = ObjectIdentifier(owner)
        state.withLock { state in
            if state.grant == id { state.grant = nil }
        }
    }

    /// Segments come back: a verifier's frame (`handedOver`), or a connection's unused ones. Wakes the engine
    /// loop if a take failed since its last wake-up. Any thread.
    func giveBack(_ segments: [FrameSegment], handedOver: Bool) {
        guard !segments.isEmpty else { return }
        let now = clock()
        let wakeUp = state.withLock { state in
            state.age(to: now)
            state.inUse -= segments.count
            if handedOver { state.handedOver -= segments.count }
            state.free.append(contentsOf: segments)
            defer { state.waiting = false }
            return state.waiting
        }
        if wakeUp { wake() }
    }

    /// Unmaps the kept segments (no chunk plan runs: an idle engine holds no frame memory).
    func releaseFree() {
        let free: [FrameSegment] = state.withLock { state in
            defer { state.free.removeAll() }
            return state.free
        }
        for segment in free { segment.release() }
    }

    /// Segments taken now, and the most taken at once (tests).
    var usage: (inUse: Int, peak: Int) { state.withLock { ($0.inUse, $0.peak) } }
}

/// One ``FrameMemory/segmentBytes`` piece of frame memory, mapped on its own (`mmap`), so that it goes back to
/// the kernel whole when released. Plain pointer: ownership moves with it between the transfer thread and a
/// verifier.
struct FrameSegment: @unchecked Sendable {
    /// The segment's first byte.
    let base: UnsafeMutableRawPointer

    /// Maps a new segment (its pages become resident when written).
    static func make() -> FrameSegment {
        let pointer = mmap(nil, FrameMemory.segmentBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let pointer, pointer != MAP_FAILED else { fatalError("cannot map \(FrameMemory.segmentBytes) bytes for a frame (out of memory)") }
        return FrameSegment(base: pointer)
    }

    /// Unmaps the segment.
    func release() { munmap(base, FrameMemory.segmentBytes) }
}
