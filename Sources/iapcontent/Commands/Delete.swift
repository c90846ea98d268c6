import ArgumentParser
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent delete`: delete a product's installed content.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a product's installed content (atomically); exit 1 if it was not installed.",
            discussion: HelpText.delete)

        @OptionGroup var product: InstalledProductOptions

        func run() async throws {
            let store = try product.openStore()
            guard try store.deleteContent(forProductID: product.productID) else {
                throw product.notInstalled(in: store, "nothing deleted")
            }
            Output.line("\(product.productID): deleted")
        }
    }
}
