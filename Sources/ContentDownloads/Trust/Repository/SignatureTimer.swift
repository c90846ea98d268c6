internal import ContentDelivery
import Glibc

/// Counts the signature checks of one repository update and the CPU time they take (this thread's clock), so a
/// check reports what verifying costs apart from the network and the parsing.
final class SignatureTimer {
    /// Documents whose signatures were checked (each against its role's keys and threshold).
    private(set) var checks = 0
    /// CPU seconds spent checking them.
    private(set) var seconds = 0.0

    /// Runs `verify` (one document's signature check), counted and timed.
    func measure(_ verify: () throws(MetadataError) -> Void) throws(MetadataError) {
        let start = Self.threadCPUSeconds()
        defer {
            checks += 1
            seconds += Self.threadCPUSeconds() - start
        }
        try verify()
    }

    private static func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
