import ArgumentParser
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent status`: every download in a store, from its journal.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show every download in a store: state, bytes, progress, time remaining, last error.")

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print JSON (keys: productID, contentVersion, state, downloadedBytes, expectedContentLength, progress, timeRemaining, error).")
        var json = false

        func run() async throws {
            let layout = storeOptions.layout
            guard FileManager.default.fileExists(atPath: layout.journal.path) else {
                printError("no downloads in \(layout.root.path) (no journal.sqlite); start one with `iapcontent download`")
                throw ExitCode(1)
            }
            let snapshots = try layout.openJournal().records().map(DownloadSnapshot.init(record:))
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                printLine(String(decoding: try encoder.encode(snapshots), as: UTF8.self))
            } else if snapshots.isEmpty {
                printLine("No downloads in \(layout.root.path).")
            } else {
                for snapshot in snapshots { printLine(ProgressPrinter.line(snapshot)) }
            }
        }
    }
}
