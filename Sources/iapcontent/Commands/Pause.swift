import ArgumentParser
import ContentDownloads

extension IAPContent {
    /// `iapcontent pause`: Pause downloads (keeps their bytes), in a running `download` or for the next one.
    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Pause downloads (keeps their bytes); a running download applies it within a second.",
            discussion: HelpText.pause)

        @Argument(help: "Product identifiers.")
        var productIDs: [String]

        @OptionGroup var storeOptions: StoreLocationOptions

        func run() async throws {
            try sendStoreCommand(.pause, productIDs: productIDs, store: storeOptions.openStore())
        }
    }
}
