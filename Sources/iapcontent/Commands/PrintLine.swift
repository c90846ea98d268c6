import ArgumentParser
import ContentDownloads
import Foundation

/// Writes a line to standard error.
func printError(_ message: String) {
    StandardOutput.writeError("iapcontent: \(message)\n")
}

/// Writes a line to standard output, unbuffered (progress must show up when piped).
func printLine(_ message: String) {
    StandardOutput.write(message + "\n")
}
