import ArgumentParser
import ContentDelivery
import Foundation

extension IAPContent {
    /// `iapcontent sign-url <url> --token-key <file> --product <id> --expires-in <s>`: a purchaser-only URL.
    struct SignURL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-url",
            abstract: "Print an archive URL carrying a purchaser token (product, expires, token).",
            discussion: HelpText.signURL)

        @Argument(help: "The archive URL to sign.")
        var url: String

        @Option(help: "URL-token key file (`iapcontent keygen --token-key`).")
        var tokenKey: String

        @Option(help: "The product the purchaser owns.")
        var product: String

        @Option(help: "Seconds the URL stays valid.")
        var expiresIn: UInt64 = 600

        func validate() throws {
            guard let parsed = URL(string: url), parsed.scheme != nil else {
                throw ValidationError("'\(url)' is not an absolute URL (e.g. http://127.0.0.1:8080/archives/<sha>.tar.zst)")
            }
        }

        mutating func run() async throws {
            let key = try URLTokenKey.read(from: URL(fileURLWithPath: tokenKey))
            let signed = URLTokenSigner(key: key).sign(
                url: URL(string: url)!, product: product, expiresIn: TimeInterval(expiresIn))
            Output.line(signed.absoluteString)
        }
    }
}
