import ArgumentParser
import ContentCommandLine
import ContentDelivery
import ContentHost
import Foundation

/// `iapcontent-serve`: what `iapcontent serve` runs (it replaces itself with this program, passing the
/// arguments after `serve`). A separate executable so the HTTP server stack (Hummingbird, SwiftNIO) is loaded
/// only by the server and never by the client commands.
@main
struct ServeProgram: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ServeOptions.executableName, abstract: ServeOptions.abstract, discussion: ServeOptions.discussion,
        version: ProgramVersion.current)

    @OptionGroup var options: ServeOptions

    /// Parses and runs; errors become exit statuses exactly as in `iapcontent` (``CommandMain``).
    static func main() async {
        await CommandMain.run(ServeProgram.self)
    }

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
