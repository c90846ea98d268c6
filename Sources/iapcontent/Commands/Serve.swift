import ArgumentParser
import ContentDelivery
import ContentHost
import Foundation
import Logging

extension IAPContent {
    /// `iapcontent serve <dir>`: serve a catalog folder over HTTP (ranges, ETags, optional tokens).
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a catalog folder over HTTP (GET/HEAD, byte ranges, strong ETags).",
            discussion: """
                Prints the listening base URL as one line on stdout when ready (with --port 0, the port \
                actually chosen); the access log goes to stderr. Stops gracefully on SIGINT/SIGTERM. \
                With --token-key, archives/* require product/expires/token query parameters \
                (403 missing or forged, 410 expired); catalog.json stays public.
                """)

        @Argument(help: "The catalog folder written by `iapcontent catalog`.")
        var directory: String

        @Option(help: "Address to bind (loopback by default).")
        var host = "127.0.0.1"

        @Option(help: "Port to bind; 0 picks a free port.")
        var port = 8080

        @Option(help: "URL-token key file (`iapcontent keygen --token-key`); protects archives/*.")
        var tokenKey: String?

        mutating func run() async throws {
            LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
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
