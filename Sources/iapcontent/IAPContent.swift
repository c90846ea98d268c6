import ArgumentParser
import Foundation

/// The `iapcontent` command: author, host and download hosted content.
@main
struct IAPContent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iapcontent",
        abstract: "Author, host and download in-app-purchase hosted content (StoreKit SKDownload semantics).",
        discussion: HelpText.root,
        version: "0.1.0",
        subcommands: [
            Validate.self, Pack.self, Inspect.self,
            BuildCatalog.self, Keygen.self, Serve.self, SignURL.self,
            Download.self, Status.self, Pause.self, Resume.self, Cancel.self,
            Content.self, Delete.self, Restore.self, InstallArchive.self, DisplayDemo.self,
        ])

    /// Parses and runs the command; the one place errors become exit statuses (see ``ExitOutcome/of(_:)``):
    /// usage errors exit 2 (argument-parser's default is 64), our errors print their message and exit 1.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let outcome = ExitOutcome.of(error)
            if !outcome.message.isEmpty {
                (outcome.toStandardError ? FileHandle.standardError : FileHandle.standardOutput)
                    .write(Data(outcome.message.utf8))
            }
            Foundation.exit(outcome.status)
        }
    }
}
