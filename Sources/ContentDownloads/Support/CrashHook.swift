import Glibc

/// Test-only: `IAPCONTENT_TEST_CRASH_AT=prepare|verify|extract|swap` kills the process with SIGKILL at that point
/// (`prepare`: an update's tree is built from the installed version, its plan not yet kept).
///
/// Lets crash tests run the installer in a child process (`iapcontent _install-archive`) and check
/// that `recover` plus a reinstall leave a whole, byte-identical version.
enum CrashHook {
    /// Points the installer passes.
    enum Point: String { case prepare, verify, extract, swap }

    /// Read once: `ProcessInfo.environment` builds a whole dictionary per call, and this runs for
    /// every package (3.5 % of the CPU of 200 small installs in `perf`).
    private static let armed: Point? = getenv("IAPCONTENT_TEST_CRASH_AT").flatMap { Point(rawValue: String(cString: $0)) }

    static func reach(_ point: Point) {
        if armed == point {
            kill(getpid(), SIGKILL)
        }
    }
}
