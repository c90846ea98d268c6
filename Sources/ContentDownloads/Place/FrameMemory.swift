internal import Synchronization
import Glibc

/// The memory every chunk plan of one engine receives frames into: fixed-size segments (``segmentBytes``),
/// filled by connections as bytes arrive and given back by the verifiers once a frame is decoded, within one
/// budget for the whole engine (``TransferSettings/frameMemoryBytes``).
///
/// **Admission.** A connection asks for a frame's segments before its first byte (``admit(_:at:for:)``): the frame is
/// admitted while the frames admitted and not yet given back fit the budget. Once admitted, a frame always gets its
/// segments, so every frame being received can complete and nothing waits on a frame that cannot. A connection
/// refused pauses (`CURL_WRITEFUNC_PAUSE`: libcurl keeps its bytes) and goes first when room comes back: giving
/// back wakes the engine loop once after any refusal. A frame larger than the budget is admitted alone.
///
/// **Which budget.** While the verifiers are the bottleneck (frames waited for one most of the last fraction of a
/// second, ``busyMemory``), more frames would only lengthen their queue: the budget is then ``queuedLimit``. While
/// the network is (the verifiers mostly idle), every connection needs a frame admitted, and ``limit`` serves them.
/// Segments become resident as bytes arrive, so what is resident follows the bytes received, not the admissions.
///
/// Admitting happens on the transfer thread; giving back on any (the verifiers); the state behind one mutex.
final class FrameMemory: Sendable {
    /// One segment's size.
    static let segmentBytes = 256 << 10
    /// How fast the verifiers' busy share forgets, in seconds.
    static let busyMemory = 0.25

    /// Segments that may be admitted at once while the network is the bottleneck.
    let limit: Int
    /// Segments that may be admitted at once while the verifiers are.
    let queuedLimit: Int

    private struct State {
        /// Segments given back, kept for the next frames (resident): at most ``FrameMemory/queuedLimit``, what
        /// the verifiers cycle through when they are the bottleneck; more go back to the kernel, so the memory
        /// held follows the frames in flight and not their high-water mark (a daemon's downloads come and go).
        var free: [FrameSegment] = []
        /// Segments of the frames admitted and not given back.
        var admitted = 0
        /// Of those, the segments of frames handed to a verifier.
        var handedOver = 0
        /// Segments taken and not given back.
        var inUse = 0
        /// The connections refused, by the archive offset of the frame they wait to admit: the lowest goes first.
        var waiters: [ObjectIdentifier: Int64] = [:]
        /// A connection was refused since the last wake-up.
        var waiting = false
        /// The share of the recent time during which frames waited for a verifier (1 at first: a download
        /// starts within the smaller budget until the verifiers prove idle).
        var busyShare = 1.0
        /// When `busyShare` was brought up to date.
        var busyUpdated: Double
        /// The most segments taken at once (tests).
        var peak = 0

        /// Whether `id`'s frame of `segments` at `offset` may be admitted within `bound`: it fits (or is alone) and
        /// no refused frame at a lower offset waits.
        func fits(_ segments: Int, at offset: Int64, for id: ObjectIdentifier, bound: Int) -> Bool {
            (admitted == 0 || admitted + segments <= bound) && !waiters.contains { $0.key != id && $0.value < offset }
        }

        /// Brings `busyShare` up to `now`: the time since the last update was busy if frames were handed over.
        mutating func age(to now: Double) {
            let kept = exp(-max(0, now - busyUpdated) / FrameMemory.busyMemory)
            busyShare = busyShare * kept + (handedOver > 0 ? 1 - kept : 0)
            busyUpdated = now
        }
    }

    private let state: Mutex<State>
    private let wake: @Sendable () -> Void
    private let clock: @Sendable () -> Double

    /// A pool of `budgetBytes` (at least one segment), of which `queuedBytes` while the verifiers are the
    /// bottleneck; `wake` wakes the engine loop (any thread); `clock` gives seconds (tests pass their own).
    init(
        budgetBytes: Int, queuedBytes: Int, clock: @escaping @Sendable () -> Double = { MonotonicTime.now() },
        wake: @escaping @Sendable () -> Void
    ) {
        limit = max(1, budgetBytes / Self.segmentBytes)
        queuedLimit = min(limit, max(1, queuedBytes / Self.segmentBytes))
        self.clock = clock
        state = Mutex(State(busyUpdated: clock()))
        self.wake = wake
    }

    deinit {
        for segment in state.withLock({ $0.free }) { segment.release() }
    }

    /// The segments a frame of `bytes` takes.
    static func segments(for bytes: Int) -> Int { max(1, (bytes + segmentBytes - 1) / segmentBytes) }

    /// Admits `owner`'s frame of `segments` at archive offset `offset`: `false` when it does not fit now, or a
    /// refused frame at a lower offset waits (the caller pauses until ``mayResume(_:at:for:)``). Frames are admitted
    /// in archive order while memory is short, so chunks arrive in file order as far as the runs allow, and each
    /// file's hash goes on in one pass with its chunks' rather than from parts read back.
    func admit(_ segments: Int, at offset: Int64, for owner: AnyObject) -> Bool {
        let id = ObjectIdentifier(owner), now = clock()
        return state.withLock { state in
            guard state.fits(segments, at: offset, for: id, bound: bound(&state, now: now)) else {
                state.waiters[id] = offset
                state.waiting = true
                return false
            }
            state.waiters[id] = nil
            state.admitted += segments
            return true
        }
    }

    /// A segment for an admitted frame.
    func segment() -> FrameSegment {
        let reused: FrameSegment? = state.withLock { state in
            state.inUse += 1
            state.peak = max(state.peak, state.inUse)
            return state.free.popLast()
        }
        return reused ?? FrameSegment.make()
    }

    /// Whether `owner`, refused a frame of `segments` at `offset`, would be admitted now. When not, the next frame
    /// given back wakes the loop (as after a refused ``admit(_:at:for:)``).
    func mayResume(_ segments: Int, at offset: Int64, for owner: AnyObject) -> Bool {
        let id = ObjectIdentifier(owner), now = clock()
        return state.withLock { state in
            let room = state.fits(segments, at: offset, for: id, bound: bound(&state, now: now))
            if !room { state.waiting = true }
            return room
        }
    }

    /// The segments that may be admitted now (see "Which budget").
    private func bound(_ state: inout State, now: Double) -> Int {
        state.age(to: now)
        return state.busyShare > 0.5 ? queuedLimit : limit
    }

    /// A whole frame goes to a verifier (which gives it back).
    func handOver(_ frame: SegmentedFrame) {
        let now = clock()
        state.withLock { state in
            state.age(to: now)
            state.handedOver += frame.admitted
        }
    }

    /// A frame comes back — decoded by a verifier (`handedOver`), or dropped by its connection — with its
    /// admission; `unused` more admitted segments no frame took. Wakes the engine loop if a connection was
    /// refused since its last wake-up. Any thread.
    func giveBack(_ frame: SegmentedFrame?, handedOver: Bool, unused: Int = 0) {
        let segments = frame?.segments ?? []
        let admitted = (frame?.admitted ?? 0) + unused
        guard admitted > 0 || !segments.isEmpty else { return }
        let now = clock()
        let (wakeUp, excess) = state.withLock { state in
            state.age(to: now)
            state.inUse -= segments.count
            state.admitted -= admitted
            if handedOver { state.handedOver -= frame?.admitted ?? 0 }
            state.free.append(contentsOf: segments)
            let excess = state.free.count > queuedLimit ? Array(state.free[queuedLimit...]) : []
            state.free.removeLast(excess.count)
            defer { state.waiting = false }
            return (state.waiting, excess)
        }
        for segment in excess { segment.release() }
        if wakeUp { wake() }
    }

    /// `owner` waits for no frame any more (its request ended).
    func forget(_ owner: AnyObject) {
        let id = ObjectIdentifier(owner)
        let wakeUp = state.withLock { state in
            guard state.waiters.removeValue(forKey: id) != nil else { return false }
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

    /// Segments admitted and taken now, the most taken at once, and those kept for reuse (tests).
    var usage: (admitted: Int, inUse: Int, peak: Int, kept: Int) {
        state.withLock { ($0.admitted, $0.inUse, $0.peak, $0.free.count) }
    }
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
