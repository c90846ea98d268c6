import ArgumentParser
import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation

extension IAPContent {
    /// Hidden: installs one local archive into a store (used by crash tests, which run it in a child
    /// process and kill it with `IAPCONTENT_TEST_CRASH_AT=extract|swap`).
    struct InstallArchive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "_install-archive",
            abstract: "Install a local content archive into a store (testing aid; trusts the archive's bytes, checks its entries).",
            discussion: HelpText.installArchive,
            shouldDisplay: false)

        @Argument(help: "The .tar.zst archive.")
        var archive: String

        @Option(help: "Product identifier the archive must contain.")
        var product: String

        @Option(help: "Content version the archive must contain.")
        var version: String

        @Option(help: "Store root folder.")
        var store: String

        @Option(help: "Declared uncompressed size (defaults to the 1 TiB cap).")
        var uncompressedSize: Int64 = 1 << 40

        @Option(help: "Declared entry count (defaults to the 100000 cap).")
        var entryCount: Int = 10_000_000

        @Flag(help: "Keep the archive after installing.")
        var keepArchive = false

        func validate() throws {
            guard ContentVersion(version) != nil else {
                throw ValidationError("'\(version)' is not a content version (dot-separated integers such as 1.2)")
            }
        }

        func run() async throws {
            let url = URL(fileURLWithPath: archive)
            let length = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64 ?? 0
            let catalogProduct = CatalogProduct(
                productID: product, contentVersion: ContentVersion(version)!, path: url.lastPathComponent,
                length: length, sha256: "", uncompressedSize: uncompressedSize, entryCount: entryCount)
            let contentStore = try Store(root: URL(fileURLWithPath: store))
            try ContentInstaller.recover(store: contentStore)
            let installed = try ContentInstaller.install(
                archive: url, product: catalogProduct, store: contentStore,
                options: .init(verifySHA256: false, removeArchive: !keepArchive, spacePreflight: nil))
            Output.line(installed.path)
        }
    }
}
