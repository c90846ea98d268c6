import Dispatch
import SystemSupport
import Foundation
import Synchronization
import Testing

/// Threads we start must carry their name into the kernel (`/proc/thread-self/comm`), where `top -H` and `perf` read it.
@Suite struct NamedThreadTests {
    @Test func theKernelSeesTheName() {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        NamedThread.start("iap-test-name") {
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.withLock { $0 = comm?.trimmingCharacters(in: .whitespacesAndNewlines) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(seen.withLock { $0 } == "iap-test-name")
    }
}
