import CLinuxSystem
import Foundation

/// Starts a `Thread` whose name the kernel knows too, so `top -H`, `perf` and `gdb` show it.
///
/// On Linux, Foundation's `Thread.name` does not reach the kernel: our threads showed up as
/// `oot.default-qos`, the name inherited from the Swift concurrency worker that created them. The
/// kernel keeps at most 15 bytes, so names are short (`iap-curl`, `iap-fsync`, `iap-install`, ...).
package enum NamedThread {
    /// Starts `body` on a new thread called `name` (at most 15 bytes).
    package static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= 15, "thread names are at most 15 bytes: \(name)")
        let thread = Thread {
            _ = CLinuxSystem_nameThisThread(name)
            body()
        }
        thread.name = name
        thread.start()
    }
}
