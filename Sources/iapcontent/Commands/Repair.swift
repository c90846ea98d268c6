import ArgumentParser
import ContentCommandLine
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent repair`: verify a product's installed files, fetch only the chunks of damaged ones, swap in.
    struct Repair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "repair",
            abstract: "Verify a product's installed files and fetch only the chunks of damaged or missing ones; swap the repaired folder in atomically.",
            discussion: HelpText.repair)

        @Argument(help: "The product identifier.")
        var productID: String

        @OptionGroup var catalogOptions: CatalogOptions

        @OptionGroup var storeOptions: StoreLocationOptions

        @OptionGroup var global: GlobalOptions

        @OptionGroup var transfer: TransferOptions

        @Flag(help: "Print what was found (and repaired) as JSON.")
        var json = false

        func run() async throws {
            global.bootstrapLogging()
            let catalog = try catalogOptions.catalog()
            let store = try storeOptions.openStore()
            let source = try transfer.verifiedCatalog(catalog, catalogOptions, products: [productID], store: store)
            let queue = try ContentQueue(store: store, catalog: source, options: transfer.downloadOptions())
            _ = try await queue.open()
            let result: ContentVerification
            do {
                result = try await queue.repair(productID: productID)
            } catch {
                await queue.close()
                Output.failure(error)
                throw ExitStatus.failure
            }
            await queue.close()
            report(result)
        }

        private func report(_ result: ContentVerification) {
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                Output.line(String(decoding: (try? encoder.encode(result)) ?? Data(), as: UTF8.self))
                return
            }
            guard !result.isIntact else {
                return Output.line("\(result.productID) \(result.contentVersion): intact, nothing to repair (\(result.filesChecked) files hashed)")
            }
            for path in result.damaged { Output.line("repaired  \(path)") }
            for path in result.missing { Output.line("restored  \(path)") }
            for path in result.extra { Output.line("removed   \(path)") }
            Output.line("\(result.productID) \(result.contentVersion): repaired")
        }
    }
}
