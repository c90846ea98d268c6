import ArgumentParser
import Foundation

/// The `iapcontent` command: author, host and download hosted content.
@main
struct IAPContent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iapcontent",
        abstract: "Author, host and download in-app-purchase hosted content (StoreKit SKDownload semantics).",
        version: "0.1.0",
        subcommands: [
            Validate.self, Pack.self, Inspect.self,
            BuildCatalog.self, Keygen.self, Serve.self, SignURL.self,
            Download.self, Status.self, Pause.self, Resume.self, Cancel.self,
            Content.self, Delete.self, Restore.self, InstallArchive.self,
        ])

    /// Runs the command, mapping argument-parser's usage-error code (64) to the documented 2.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
