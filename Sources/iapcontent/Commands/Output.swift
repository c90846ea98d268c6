import Foundation

/// The one way commands write text: results on stdout, problems and notes on stderr, one line each.
///
/// Every write is unbuffered, so progress and results show up at once in a pipe, and a reader that went away
/// (`| head`, a closed `jq`: EPIPE) loses the text but never crashes a command mid-download
/// (`FileHandle.write(_:)` would trap).
enum Output {
    /// Prints `text` and a newline on stdout: a result, or a note for a person.
    static func line(_ text: String) {
        write(text + "\n")
    }

    /// Prints a problem on stderr as `iapcontent: <text>` and a newline.
    static func error(_ text: String) {
        writeError("iapcontent: \(text)\n")
    }

    /// Prints `text` and a newline on stderr as it is: a note, or a problem line that names its own place
    /// (validate's `path: problem` lines).
    static func note(_ text: String) {
        writeError(text + "\n")
    }

    /// Writes `text` on stdout as it is (no newline added): for displays that draw their own lines.
    @Sendable static func write(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    }

    /// Writes `text` on stderr as it is.
    private static func writeError(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
