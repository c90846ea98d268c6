internal import Dispatch

/// Runs a call that blocks its thread (a libcurl request, a journal transaction) on a global dispatch queue and
/// suspends the caller meanwhile, so it never holds one of the few threads of Swift's cooperative pool.
enum BlockingCall {
    /// The result of `work`, computed on a `utility` dispatch queue; cancelling the caller does not stop it
    /// (the work's own timeouts bound it).
    static func run<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: Result { () throws(Failure) -> Value in try work() })
            }
        }
        return try result.get()
    }
}
