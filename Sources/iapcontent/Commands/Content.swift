import ArgumentParser
import ContentCommandLine
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent content`: print the installed content folder of a product.
    struct Content: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "content",
            abstract: "Print a product's installed content folder (ContentInfo.plist + Contents/); exit 1 if not installed.",
            discussion: HelpText.content)

        @Argument(help: "The product identifier.")
        var productID: String

        @OptionGroup var storeOptions: StoreLocationOptions

        func run() async throws {
            let store = try storeOptions.openStore()
            guard let url = store.contentURL(forProductID: productID) else {
                Output.error("\(productID) is not installed in \(store.root.path); download it with `iapcontent download \(productID) --catalog <URL> --store \(store.root.path)`")
                throw ExitStatus.failure
            }
            Output.line(url.path)
        }
    }
}
