import ArgumentParser
import ContentCommandLine
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent verify`: re-hash a product's installed files against the manifest it was installed from.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Re-hash a product's installed files against its manifest; list damaged, missing and extra files (exit 1 if any).",
            discussion: HelpText.verify)

        @OptionGroup var product: InstalledProductOptions

        @Flag(help: "Print the result as JSON.")
        var json = false

        func run() async throws {
            let store = try product.openStore()
            let result: ContentVerification
            do { result = try store.verifyContent(productID: product.productID) } catch {
                Output.failure(error)
                throw ExitStatus.failure
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                Output.line(String(decoding: try encoder.encode(result), as: UTF8.self))
            } else {
                for path in result.damaged { Output.line("damaged  \(path)") }
                for path in result.missing { Output.line("missing  \(path)") }
                for path in result.extra { Output.line("extra    \(path)") }
                let verdict = result.isIntact ? "intact" : "NOT intact"
                Output.line("\(result.productID) \(result.contentVersion): \(verdict) (\(result.filesChecked) files, \(result.bytesChecked) bytes hashed)")
            }
            if !result.isIntact { throw ExitStatus.failure }
        }
    }
}
