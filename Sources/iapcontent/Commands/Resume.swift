import ArgumentParser
import ContentDownloads

extension IAPContent {
    /// `iapcontent resume`: Resume paused downloads, in a running `download` or for the next one.
    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume",
            abstract: "Resume paused downloads; a running download applies it within a second.",
            discussion: HelpText.resume)

        @Argument(help: "Product identifiers.")
        var productIDs: [String]

        @OptionGroup var storeOptions: StoreLocationOptions

        func run() async throws {
            try sendStoreCommand(.resume, productIDs: productIDs, store: storeOptions.openStore())
        }
    }
}
