import ArgumentParser
import ContentDelivery
import ContentHost
import Foundation

extension IAPContent {
    /// `iapcontent serve <dir>`: serve a catalog folder over HTTP (ranges, ETags, optional tokens).
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a catalog folder over HTTP (GET/HEAD, byte ranges, strong ETags).",
            discussion: HelpText.serve)

        @Argument(help: "The catalog folder written by `iapcontent catalog`.")
        var directory: String

        @Option(help: "Address to bind (loopback by default).")
        var host = "127.0.0.1"

        @Option(help: "Port to bind; 0 picks a free port.")
        var port = 8080

        @Option(help: "URL-token key file (`iapcontent keygen --token-key`); protects archives/*.")
        var tokenKey: String?

        @OptionGroup var global: GlobalOptions

        mutating func run() async throws {
            global.bootstrapLogging()
            let key = try tokenKey.map { try URLTokenKey.read(from: URL(fileURLWithPath: $0)) }
            let server = ContentServer(
                configuration: .init(
                    root: URL(fileURLWithPath: directory, isDirectory: true), host: host, port: port, tokenKey: key))
            try await server.run { url in
                FileHandle.standardOutput.write(Data("\(url.absoluteString)\n".utf8))
            }
        }
    }
}
