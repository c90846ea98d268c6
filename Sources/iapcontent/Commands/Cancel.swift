import ArgumentParser
import ContentDownloads

extension IAPContent {
    /// `iapcontent cancel`: Cancel downloads and delete their partial data, in a running `download` or for the next one.
    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel",
            abstract: "Cancel downloads and delete their partial data; a running download applies it within a second.",
            discussion: HelpText.cancel)

        @Argument(help: "Product identifiers.")
        var productIDs: [String]

        @OptionGroup var storeOptions: StoreLocationOptions

        func run() async throws {
            try sendStoreCommand(.cancel, productIDs: productIDs, store: storeOptions.openStore())
        }
    }
}
