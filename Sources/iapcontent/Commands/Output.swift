import ContentCommandLine
import ContentDownloads
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

    /// Prints a problem on stderr as `iapcontent: <text>` and a newline, or under `--json` as one JSON object with
    /// `code` (``ErrorLine``).
    static func error(_ text: String, code: String = "failure") {
        writeError(ErrorLine.error(text, code: code))
    }

    /// Prints a library error (its message, and under `--json` its code) on stderr.
    static func failure(_ error: any Error, prefix: String = "") {
        let message = (error as? DownloadError)?.message ?? (error as? any ContentError)?.description ?? "\(error)"
        Self.error(prefix + message, code: (error as? any ContentError)?.errorCode ?? "failure")
    }

    /// Prints a warning on stderr (the command goes on), or under `--json` one JSON object.
    static func warning(_ text: String) {
        writeError(ErrorLine.warning(text))
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
