import ArgumentParser
import ContentCommandLine
import ContentDelivery
import ContentHost
import Foundation

extension IAPContent {
    /// `iapcontent serve <dir>`: serve a catalog folder over HTTP (ranges, ETags, optional tokens).
    ///
    /// The server runs in this process: one program carries the client and the host, so a user installs one file.
    /// Linked statically, the server stack (Hummingbird, SwiftNIO) costs the client commands disk bytes but no
    /// resident memory: only the pages a command runs are read in.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: ServeOptions.abstract, discussion: ServeOptions.discussion)

        @OptionGroup var options: ServeOptions

        func run() async throws {
            options.global.bootstrapLogging()
            let key = try options.tokenKey.map { try URLTokenKey.read(from: URL(fileURLWithPath: $0)) }
            let server = ContentServer(
                configuration: .init(
                    root: URL(fileURLWithPath: options.directory, isDirectory: true), host: options.host,
                    port: options.port, tokenKey: key))
            try await server.run { url in
                FileHandle.standardOutput.write(Data("\(url.absoluteString)\n".utf8))
            }
        }
    }
}
