internal import SystemSupport

/// Runs a call that blocks its thread (a libcurl request, a journal transaction) on a thread of its own and
/// suspends the caller meanwhile, so it holds neither one of the few threads of Swift's cooperative pool nor one
/// of libdispatch's global queues (on Linux those run about one thread per core, and a slow server would queue
/// every other user behind it).
enum BlockingCall {
    /// The result of `work`, computed on a new thread named `thread` (at most 15 bytes, shown by `top -H`);
    /// cancelling the caller does not stop it (the work's own timeouts bound it).
    static func run<Value: Sendable, Failure: Error>(
        thread: String, _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            NamedThread.start(thread) {
                continuation.resume(returning: Result { () throws(Failure) -> Value in try work() })
            }
        }
        return try result.get()
    }

    /// The first part of `work`'s result, as soon as `work` returns; the thread then goes on with `then` and the
    /// second part while the caller resumes: work that must follow on the same thread (it owns what the second
    /// part holds) but that the caller does not wait for — a plan made durable while its fetch starts.
    static func run<Value: Sendable, Rest>(
        thread: String, _ work: @escaping @Sendable () -> (Value, Rest), then rest: @escaping @Sendable (Rest) -> Void
    ) async -> Value {
        await withCheckedContinuation { continuation in
            NamedThread.start(thread) {
                let (value, more) = work()
                continuation.resume(returning: value)
                rest(more)
            }
        }
    }
}
