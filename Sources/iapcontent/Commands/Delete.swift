import ArgumentParser
import ContentCommandLine
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent delete`: delete a product's installed content.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a product's installed content (atomically); exit 1 if it was not installed.",
            discussion: HelpText.delete)

        @Argument(help: "The product identifier.")
        var productID: String

        @OptionGroup var storeOptions: StoreLocationOptions

        func run() async throws {
            let store = try storeOptions.openStore()
            guard try store.deleteContent(forProductID: productID) else {
                Output.error("\(productID) is not installed in \(store.root.path); nothing deleted")
                throw ExitStatus.failure
            }
            Output.line("\(productID): deleted")
        }
    }
}
