import Foundation

/// Blocking test work on a thread of its own, away from the cooperative pool.
///
/// On two cores the pool has two threads; a test that blocks one of them (a socket read with a timeout, a
/// child process) while another test blocks the other starves every task behind them. A reader that must
/// keep up with a producer runs here instead, so it keeps up however busy the pool is.
public enum OwnThread {
    /// Runs `body` on a new thread and returns its value when it ends.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
