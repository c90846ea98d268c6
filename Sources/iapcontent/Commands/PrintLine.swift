import ArgumentParser
import ContentDownloads
import Foundation

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("iapcontent: \(message)\n".utf8))
}

/// Writes a line to standard output, unbuffered (progress must show up when piped).
func printLine(_ message: String) {
    FileHandle.standardOutput.write(Data((message + "\n").utf8))
}
