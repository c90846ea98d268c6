import Glibc

/// Test-only: `IAPCONTENT_TEST_CRASH_AT=prepare|verify|extract|swap|unkept|plan` kills the process with SIGKILL at that
/// point (`plan`: a download's manifest is about to be read and applied, in planning or in loading a resumed plan; `prepare`: an update's tree is built from the installed version, its plan not yet kept; `unkept`: the
/// first fetched frame arrived while the plan is not durable — the planning thread holds its ``TreeBuilder/keep(_:)``
/// back so that this is so).
///
/// Lets crash tests run the installer in a child process (`iapcontent _install-archive`) and check
/// that `recover` plus a reinstall leave a whole, byte-identical version.
enum CrashHook {
    /// Points the installer passes.
    enum Point: String { case prepare, verify, extract, swap, unkept, plan }

    /// Read once: `ProcessInfo.environment` builds a whole dictionary per call, and this runs for
    /// every package (3.5 % of the CPU of 200 small installs in `perf`).
    private static let armed: Point? = getenv("IAPCONTENT_TEST_CRASH_AT").flatMap { Point(rawValue: String(cString: $0)) }

    static func reach(_ point: Point) {
        if armed == point {
            kill(getpid(), SIGKILL)
        }
    }

    /// When armed at `point`, holds the calling thread up to 30 s, so that the process is killed at that point
    /// elsewhere first (``reach(_:)`` on another thread); otherwise returns at once.
    static func hold(_ point: Point) {
        guard armed == point else { return }
        for _ in 0..<300 { usleep(100_000) }
    }
}
