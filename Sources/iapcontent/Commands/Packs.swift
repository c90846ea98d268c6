import ArgumentParser
import ContentCommandLine
import ContentDownloads
import ContentPackaging
import Foundation

extension IAPContent {
    /// `iapcontent packs`: show an installed product's packs, install on-demand ones, switch its variants.
    struct Packs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "packs",
            abstract: "Show an installed product's packs; add or remove packs and switch variants (language=fr) in one atomic change that fetches only what is not on disk.",
            discussion: HelpText.packs)

        @Argument(help: "The product identifier.")
        var productID: String

        @Option(name: .customLong("add"), help: ArgumentHelp("A pack to install (repeatable): on-demand or prefetch packs, all in one download.", valueName: "pack"))
        var add: [String] = []

        @Option(name: .customLong("remove"), help: ArgumentHelp("A pack to remove (repeatable); essential packs stay.", valueName: "pack"))
        var remove: [String] = []

        @OptionGroup var catalogOptions: CatalogOptions

        @OptionGroup var storeOptions: StoreLocationOptions

        @OptionGroup var global: GlobalOptions

        @OptionGroup var transfer: TransferOptions

        @Flag(help: "Print the packs as JSON.")
        var json = false

        func run() async throws {
            global.bootstrapLogging()
            let store = try storeOptions.openStore()
            let changes = !add.isEmpty || !remove.isEmpty || !transfer.select.isEmpty
            // Removing packs, or switching back to variants on disk, needs no network: the catalog only when given.
            let catalog = changes ? try catalogOptions.catalog(required: !add.isEmpty) : nil
            let source = try catalog.map { try transfer.verifiedCatalog($0, catalogOptions, products: [productID], store: store) }
            let queue = try ContentQueue(store: store, catalog: source, options: transfer.downloadOptions())
            do {
                if changes {
                    _ = try await queue.open()
                    try await queue.checkChange(productID: productID, removing: remove, selects: !transfer.select.isEmpty)
                    var selection = await queue.changeBase(for: productID)
                    selection.packs.formUnion(add)
                    selection.packs.subtract(remove)
                    selection.profile = transfer.applyingSelect(to: selection.profile)
                    try await queue.changeSelection(productID: productID, to: selection)
                }
                report(try await queue.packs(productID: productID))
            } catch {
                await queue.close()
                Output.failure(error)
                throw ExitStatus.failure
            }
            await queue.close()
        }

        private func report(_ packs: [PackStatus]) {
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                return Output.line(String(decoding: (try? encoder.encode(packs)) ?? Data(), as: UTF8.self))
            }
            func column(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
            Output.line(column("PACK", 14) + column("POLICY", 11) + column("STATE", 15) + column("SIZE", 12) + "TO FETCH")
            for pack in packs {
                Output.line(
                    column(pack.id, 14) + column(pack.policy.rawValue, 11) + column(pack.installed ? "installed" : "not installed", 15)
                        + column(Formatting.bytes(pack.bytes), 12) + (pack.installed ? "-" : "≤ " + Formatting.bytes(pack.bytesToFetch)))
                for variant in pack.variants {
                    let installed = pack.installed ? "\(variant.installed ?? "(untagged)") installed" : "not installed"
                    let preferred = variant.preferred == variant.installed && pack.installed ? "" : ", this device prefers \(variant.preferred ?? "(untagged)")"
                    Output.line("  \(variant.path) \(variant.axis): \(installed)\(preferred); offered: \(variant.values.joined(separator: ", "))")
                }
            }
        }
    }
}
