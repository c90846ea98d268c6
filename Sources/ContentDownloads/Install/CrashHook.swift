import Foundation
import Glibc

/// Test-only: `IAPCONTENT_TEST_CRASH_AT=verify|extract|swap` kills the process with SIGKILL at that point.
///
/// Lets crash tests run the installer in a child process (`iapcontent _install-archive`) and check
/// that `recover` plus a reinstall leave a whole, byte-identical version.
enum CrashHook {
    /// Points the installer passes.
    enum Point: String { case verify, extract, swap }

    static func reach(_ point: Point) {
        if ProcessInfo.processInfo.environment["IAPCONTENT_TEST_CRASH_AT"] == point.rawValue {
            kill(getpid(), SIGKILL)
        }
    }
}
