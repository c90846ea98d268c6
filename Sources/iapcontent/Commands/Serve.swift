import ArgumentParser
import ContentCommandLine

extension IAPContent {
    /// `iapcontent serve <dir>`: serve a catalog folder over HTTP (ranges, ETags, optional tokens).
    ///
    /// Parsed here (so help, usage errors, the man page and completions come from this command), then run by
    /// `iapcontent-serve`, the sibling program that carries the HTTP server: `iapcontent` replaces itself with
    /// it (``SiblingProgram/exec(_:arguments:)``), so the process, its pid, stdout and signals stay the same.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: ServeOptions.abstract, discussion: ServeOptions.discussion)

        @OptionGroup var options: ServeOptions

        func run() async throws {
            try SiblingProgram.exec(ServeOptions.executableName, arguments: SiblingProgram.arguments(after: "serve"))
        }
    }
}
