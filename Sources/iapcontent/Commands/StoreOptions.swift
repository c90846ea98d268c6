import ArgumentParser
import ContentDownloads
import Foundation

/// The `--store <dir>` option shared by the download commands.
struct StoreOptions: ParsableArguments {
    @Option(help: "The store folder (journal, partial and verified archives, installed content).")
    var store: String

    /// The store's layout.
    var layout: StoreLayout { StoreLayout(root: URL(fileURLWithPath: store)) }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("iapcontent: \(message)\n".utf8))
}

/// Writes a line to standard output, unbuffered (progress must show up when piped).
func printLine(_ message: String) {
    FileHandle.standardOutput.write(Data((message + "\n").utf8))
}
