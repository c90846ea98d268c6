import ArgumentParser
import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Glibc

extension IAPContent.Repo {
    /// `repo check`: a client's update check against a repository, for a publisher or an operator to see what every
    /// device's check fetches and finds.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Run a client's update check against a repository: the TUF workflow, what it fetched, what it found.",
            discussion: HelpText.repoCheck)

        @Argument(help: "The repository's folder URL (http(s), file) or path: the folder holding metadata/ and targets/.")
        var repository: String

        @Argument(help: "Products to look up (their bins are fetched); none: only the root chain and the timestamp.")
        var productIDs: [String] = []

        @Option(name: .customLong("trusted-root"), help: ArgumentHelp("The root.json the app ships.", valueName: "file"))
        var trustedRoot: String

        @OptionGroup var storeOptions: StoreLocationOptions

        @OptionGroup var transfer: TransferOptions

        @Flag(help: "Print the result as one JSON object.")
        var json = false

        func run() async throws {
            let store = try storeOptions.openStore()
            let before = Self.cpuSeconds()
            let check = try exitingOnDownloadError { () throws(DownloadError) in
                try RepositoryClient(repository: repository, trustedRootFile: trustedRoot, store: store, transport: transfer.transferSettings())
                    .check(productIDs: productIDs)
            }
            let cpu = (Self.cpuSeconds() - before) * 1000
            let products = check.source.catalog.products
            if json {
                let object = Report(
                    rootVersion: check.rootVersion, timestampVersion: check.timestampVersion, timestampChanged: check.timestampChanged,
                    requests: check.requests, bytesReceived: check.bytesReceived, cpuMilliseconds: (cpu * 100).rounded() / 100,
                    signatureChecks: check.signatureChecks, signatureMilliseconds: (check.signatureCPUSeconds * 100_000).rounded() / 100,
                    products: products.map {
                        .init(productID: $0.productID, contentVersion: $0.contentVersion.description, length: $0.length, sha256: $0.sha256)
                    })
                Output.line(try JSONText.encode(object, pretty: true))
                return
            }
            Output.line(
                "root \(check.rootVersion), timestamp \(check.timestampVersion) (\(check.timestampChanged ? "new" : "unchanged")): "
                    + "\(check.requests) request(s), \(check.bytesReceived) bytes received, \(String(format: "%.1f", cpu)) ms CPU "
                    + "(\(check.signatureChecks) signature checks: \(String(format: "%.2f", check.signatureCPUSeconds * 1000)) ms)")
            for product in products {
                Output.line("\(product.productID) \(product.contentVersion): \(product.length) bytes, sha256 \(product.sha256)")
            }
        }

        /// User + system CPU time of this process so far.
        static func cpuSeconds() -> Double {
            var usage = rusage()
            getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }

        struct Report: Encodable {
            struct Product: Encodable {
                var productID: String
                var contentVersion: String
                var length: Int64
                var sha256: String
            }
            var rootVersion: Int64
            var timestampVersion: Int64
            var timestampChanged: Bool
            var requests: Int
            var bytesReceived: Int
            var cpuMilliseconds: Double
            var signatureChecks: Int
            var signatureMilliseconds: Double
            var products: [Product]
        }
    }
}
