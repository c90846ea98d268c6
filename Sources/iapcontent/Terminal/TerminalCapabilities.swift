import Foundation
import Glibc

/// What standard output is connected to: a terminal (live display, maybe colour) or a pipe/file.
struct TerminalCapabilities: Sendable, Equatable {
    /// Standard output is a terminal (`isatty(1)`).
    var isTerminal: Bool
    /// Colour is wanted: a terminal, `NO_COLOR` unset or empty, and `TERM` is not `dumb`.
    var colour: Bool

    /// Detects the capabilities of file descriptor 1 under `environment`.
    static func detect(environment: [String: String] = ProcessInfo.processInfo.environment) -> TerminalCapabilities {
        let tty = isatty(STDOUT_FILENO) == 1
        return TerminalCapabilities(isTerminal: tty, colour: wantsColour(isTerminal: tty, environment: environment))
    }

    /// Colour only on a terminal that is not `dumb`, and never when `NO_COLOR` is set to a non-empty value
    /// (https://no-color.org).
    static func wantsColour(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    /// Terminal width in columns: `TIOCGWINSZ` on standard output, else `COLUMNS`, else 80.
    static func columns(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = environment["COLUMNS"], let value = Int(text), value > 0 { return value }
        return 80
    }
}
