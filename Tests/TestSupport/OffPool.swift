import Foundation

/// Runs blocking work (a child process to its end, a socket read with a timeout, packing gigabytes) on a thread of
/// its own, so it holds no thread of Swift's cooperative pool.
///
/// On two cores that pool has two threads and never grows while they block: two tests waiting on child processes
/// there stop every other test's in-process work (a download manager's retry, a watchdog, a reader that must keep
/// up) for as long as they wait, and its timeouts then fire on work that never got a thread.
public func offPool<T>(_ work: @escaping () throws -> T) async throws -> T {
    let handover = OffPoolWork(work: work)
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        Thread {
            do { continuation.resume(returning: try handover.work()) } catch { continuation.resume(throwing: error) }
        }.start()
    }
}

/// Blocking work handed to the one thread that runs it (hence `@unchecked Sendable`).
private struct OffPoolWork<T>: @unchecked Sendable {
    let work: () throws -> T
}
