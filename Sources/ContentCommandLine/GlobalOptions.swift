package import ArgumentParser
package import Logging
import Synchronization

/// `--quiet` / `--verbose`: how much a command says. `@OptionGroup var global: GlobalOptions`, then
/// `global.bootstrapLogging()` first thing in `run()`.
package struct GlobalOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Only errors: no progress display, no notes.")
    package var quiet = false

    @Flag(name: .shortAndLong, help: "More detail on stderr (debug logging; twice for trace).")
    package var verbose: Int

    /// No flags: info-level logging.
    package init() {}

    /// Rejects `--quiet` together with `--verbose`.
    package func validate() throws {
        if quiet && verbose > 0 { throw ValidationError("--quiet and --verbose cannot be used together") }
    }

    /// The swift-log level these flags ask for: error (quiet), info (default), debug (-v), trace (-vv).
    package var logLevel: Logger.Level {
        if quiet { return .error }
        switch verbose {
        case 0: return .info
        case 1: return .debug
        default: return .trace
        }
    }

    /// Sends swift-log output to stderr at ``logLevel``. Bootstraps once per process; later calls do nothing
    /// (swift-log traps on a second bootstrap).
    package func bootstrapLogging() {
        LoggingBootstrap.once(level: logLevel)
    }
}

/// The process-wide swift-log bootstrap, guarded so it runs once.
package enum LoggingBootstrap {
    private static let done = Mutex(false)

    /// Bootstraps a stderr handler at `level` unless already bootstrapped.
    package static func once(level: Logger.Level) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
