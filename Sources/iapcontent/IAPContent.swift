import ArgumentParser

/// The `iapcontent` command: author, host and download hosted content.
@main
struct IAPContent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iapcontent",
        abstract: "Author, host and download in-app-purchase hosted content (StoreKit SKDownload semantics).",
        version: "0.1.0",
        subcommands: [Download.self, Status.self, Pause.self, Resume.self, Cancel.self])
}
