import ArgumentParser
import ContentDelivery
import Foundation

extension IAPContent {
    /// `iapcontent catalog <dir> --output <dir>`: publish packed archives as a static catalog folder.
    struct BuildCatalog: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "catalog",
            abstract: "Build a static, content-addressed catalog folder from packed archives.",
            discussion: HelpText.catalog)

        @Argument(help: "Folder holding the archives and manifests written by `iapcontent pack`.")
        var input: String

        @Option(name: .shortAndLong, help: "Catalog folder to write (created if missing).")
        var output: String

        @Option(help: "Public base URL; products get an absolute url <base-url>/archives/<sha256>.tar.zst.")
        var baseURL: String?

        @Option(name: .customLong("mirror"), help: "Mirror base URL clients may also fetch from (repeatable).")
        var mirrors: [String] = []

        @Option(help: "Ed25519 key file from `iapcontent keygen`; writes catalog.json.sig.")
        var signingKey: String?

        @Option(help: "Catalog version; must exceed the published one (default: previous + 1).")
        var catalogVersion: UInt64?

        @Option(help: "Seconds until clients refuse the catalog (re-sign before then).")
        var expiresIn: UInt64?

        @Option(help: "For each product, report the update size from this many older versions found in the input folder (0: none).")
        var updatesFrom = 3

        mutating func run() async throws {
            let key = try signingKey.map { try KeyFile.read(from: URL(fileURLWithPath: $0)) }
            let builder = CatalogBuilder(
                inputDirectory: URL(fileURLWithPath: input, isDirectory: true),
                outputDirectory: URL(fileURLWithPath: output, isDirectory: true),
                baseURL: baseURL, mirrors: mirrors, catalogVersion: catalogVersion,
                expiresIn: expiresIn.map { TimeInterval($0) }, signingKey: key)
            let result = try builder.build()
            for skipped in result.superseded {
                Output.line("note: \(skipped.archive): \(skipped.productID) \(skipped.skipped) superseded by \(skipped.kept)")
            }
            let older = updatesFrom > 0 ? UpdateReport.olderManifests(in: URL(fileURLWithPath: input, isDirectory: true)) : [:]
            for product in result.catalog.products {
                Output.line("\(product.productID) \(product.contentVersion) \(product.path) \(product.length) bytes")
                for line in UpdateReport.lines(for: product, older: older[product.productID] ?? [], limit: updatesFrom) {
                    Output.line("  " + line)
                }
            }
            var summary = "wrote \(result.catalogURL.path) (catalogVersion \(result.catalog.catalogVersion)"
            if let signature = result.signature { summary += ", signed by key \(signature.keyID)" }
            if let expires = result.catalog.expires { summary += ", expires \(CatalogDate.string(from: expires))" }
            Output.line(summary + ")")
        }
    }
}
