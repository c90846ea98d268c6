import ArgumentParser
import ContentDelivery
import Foundation

extension IAPContent {
    /// `iapcontent keygen --output <file>`: create a catalog signing key (or, with `--token-key`, a URL-token key).
    struct Keygen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keygen",
            abstract: "Create an Ed25519 catalog signing key, or a URL-token key with --token-key.",
            discussion: HelpText.keygen)

        @Option(name: .shortAndLong, help: "Key file to create.")
        var output: String

        @Flag(help: "Create a URL-token (HMAC) key instead of a signing key.")
        var tokenKey = false

        mutating func run() async throws {
            let url = URL(fileURLWithPath: output)
            if tokenKey {
                try URLTokenKey.generate().write(to: url)
                Output.line("wrote URL-token key \(url.path) (mode 0600)")
                return
            }
            let key = SigningKey.generate()
            try KeyFile.write(key, to: url)
            Output.line(key.publicKeyBase64)
            Output.note("wrote signing key \(url.path) (mode 0600), keyID \(key.keyID); pin the public key above in the app")
        }
    }
}
