import ArgumentParser
import ContentCommandLine
import ContentDelivery
import Foundation

extension IAPContent {
    /// `iapcontent entitlements`: the server side of proactive restore.
    struct EntitlementsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "entitlements",
            abstract: "Publish what a customer is entitled to, signed, for `restore --entitlements`.",
            discussion: HelpText.entitlementsSign,
            subcommands: [Sign.self])
    }
}

extension IAPContent.EntitlementsCommand {
    /// `iapcontent entitlements sign INPUT.json --signing-key KEY --output FILE`: FILE plus FILE.sig.
    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign",
            abstract: "Sign a customer's entitlements: adds issuedAt and sequence, writes FILE and FILE.sig.",
            discussion: HelpText.entitlementsSign)

        @Argument(help: "JSON with subject and products ({\"<productID>\": \"active\" | \"revoked\" | \"expired\"}).")
        var input: String

        @Option(help: "Ed25519 key file from `iapcontent keygen`.")
        var signingKey: String

        @Option(name: .shortAndLong, help: "Document to write; its signature goes to <output>.sig.")
        var output: String

        @Option(help: "Sequence; clients refuse one lower than they saw for the subject (default: the current Unix time).")
        var sequence: UInt64?

        @Option(help: "Seconds until clients refuse the document (sign a fresh one before then).")
        var expiresIn: UInt64?

        /// What the server knows: subject and product states (issuedAt and sequence are added here).
        private struct Input: Decodable {
            var subject: String
            var products: [String: Entitlements.State]
        }

        mutating func run() async throws {
            let key = try KeyFile.read(from: URL(fileURLWithPath: signingKey))
            let input: Input
            do { input = try JSONDecoder().decode(Input.self, from: Data(contentsOf: URL(fileURLWithPath: self.input))) } catch {
                Output.error(
                    "\(self.input) is not entitlements input: \(error); expected {\"subject\": \"customer-1\", "
                        + "\"products\": {\"<productID>\": \"active\" | \"revoked\" | \"expired\"}}")
                throw ExitStatus.failure
            }
            let now = Date()
            let document = Entitlements(
                subject: input.subject, issuedAt: now,
                sequence: sequence ?? UInt64(now.timeIntervalSince1970.rounded(.down)),
                expires: expiresIn.map { now.addingTimeInterval(TimeInterval($0)) }, products: input.products)
            let url = URL(fileURLWithPath: output)
            let signature = try document.write(to: url, signingKey: key)
            Output.line(
                "wrote \(url.path) and \(Entitlements.signatureURL(for: url).path) (subject \(document.subject), "
                    + "sequence \(document.sequence), \(document.products.count) product(s), signed by key \(signature.keyID))")
        }
    }
}
