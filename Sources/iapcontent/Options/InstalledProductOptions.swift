import ArgumentParser
import ContentCommandLine
import ContentDownloads
import Foundation

/// `<product-id> [--store <dir>]` as an option group, for the commands that act on one product's installed
/// content (`content`, `delete`): `@OptionGroup var product: InstalledProductOptions`.
struct InstalledProductOptions: ParsableArguments {
    @Argument(help: "The product identifier.")
    var productID: String

    @OptionGroup var storeOptions: StoreLocationOptions

    /// Opens the store (see ``StoreLocationOptions/openStore()``).
    func openStore() throws -> Store {
        try storeOptions.openStore()
    }

    /// Prints `<product> is not installed in <store>; <what now>` and returns the status to exit with (1).
    func notInstalled(in store: Store, _ whatNow: String) -> ExitStatus {
        Output.error("\(productID) is not installed in \(store.root.path); \(whatNow)", code: "notInstalled")
        return .failure
    }
}
