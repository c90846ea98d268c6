internal import Dispatch
internal import Synchronization

/// Whether a chunk plan handed to its fetch in memory is durable yet.
///
/// The planning thread hands the plan over as soon as the tree's files exist, then makes the tree, the selection
/// record and the plan durable while the fetch opens its connections and sends its first requests, and settles
/// this once. Two things wait for it: the install thread, before it places the first fetched byte in the tree
/// (``wait()``), and the next planning of the same product, before it touches the tree (``settled()``). A kill
/// before it is settled leaves no plan on disk: the restart finds nothing of the download to resume, and the
/// bytes that had arrived were only ever held in memory.
final class PlanKeeping: Sendable {
    private struct State: Sendable {
        /// `nil` until settled; then `nil` inside when the plan is durable, else why it is not.
        var outcome: InstallError??
        var waiters: [CheckedContinuation<InstallError?, Never>] = []
    }

    private let state = Mutex(State())
    /// Signalled once settled; each blocking waiter passes the signal on.
    private let done = DispatchSemaphore(value: 0)

    /// Records that the plan is durable (`failure` is `nil`) or could not be made so; only the first call counts.
    func settle(_ failure: InstallError?) {
        let waiters = state.withLock { state -> [CheckedContinuation<InstallError?, Never>]? in
            guard state.outcome == nil else { return nil }
            state.outcome = .some(failure)
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        guard let waiters else { return }
        done.signal()
        for waiter in waiters { waiter.resume(returning: failure) }
    }

    /// Blocks the calling thread (a thread of its own, never one of the cooperative pool's) until settled; the
    /// failure, if the plan could not be made durable.
    func wait() -> InstallError? {
        done.wait()
        done.signal()
        return state.withLock { $0.outcome ?? nil }
    }

    /// Suspends until settled; the failure, if the plan could not be made durable.
    func settled() async -> InstallError? {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> InstallError?? in
                if state.outcome == nil { state.waiters.append(continuation) }
                return state.outcome
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
