import Foundation

/// Writes CLI output: results on stdout, problems and notes on stderr, one line each.
enum Output {
    /// Prints `text` and a newline on stdout.
    static func line(_ text: String) {
        StandardOutput.write(text + "\n")
    }

    /// Prints `text` and a newline on stderr.
    static func error(_ text: String) {
        StandardOutput.writeError(text + "\n")
    }
}
