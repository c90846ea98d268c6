import ArgumentParser
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent content`: print the installed content folder of a product.
    struct Content: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "content",
            abstract: "Print a product's installed content folder (ContentInfo.plist + Contents/); exit 1 if not installed.",
            discussion: HelpText.content)

        @OptionGroup var product: InstalledProductOptions

        func run() async throws {
            let store = try product.openStore()
            guard let url = store.contentURL(forProductID: product.productID) else {
                throw product.notInstalled(
                    in: store, "download it with `iapcontent download \(product.productID) --catalog <URL> --store \(store.root.path)`")
            }
            Output.line(url.path)
        }
    }
}
