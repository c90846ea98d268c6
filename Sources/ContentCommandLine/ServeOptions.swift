package import ArgumentParser

/// The options of `iapcontent serve`: the catalog folder, the address and the token key.
package struct ServeOptions: ParsableArguments {
    /// The one-line summary in `iapcontent --help`.
    package static let abstract = "Serve a catalog folder over HTTP (GET/HEAD, byte ranges, strong ETags)."

    /// The long `--help` text.
    package static let discussion = """
        Prints the listening base URL as one line on stdout when ready (with --port 0, the port \
        actually chosen); the access log goes to stderr. Answers GET and HEAD with byte ranges \
        (206, 416) and strong ETags, so interrupted downloads resume. Stops gracefully on \
        Ctrl-C/SIGTERM and exits 0. With --token-key, archives/* require product/expires/token query \
        parameters (403 missing or forged, 410 expired); catalog.json stays public.

        EXAMPLES:
          iapcontent serve site
          iapcontent serve site --host 0.0.0.0 --port 8443 --token-key token.key
          iapcontent serve site --port 0 | head -1    # the URL of a free port
        """

    /// The catalog folder to serve.
    @Argument(help: "The catalog folder written by `iapcontent catalog`.")
    package var directory: String

    /// Address to bind.
    @Option(help: "Address to bind (loopback by default).")
    package var host = "127.0.0.1"

    /// Port to bind; 0 picks a free one.
    @Option(help: "Port to bind; 0 picks a free port.")
    package var port = 8080

    /// The URL-token key file protecting `archives/*`.
    @Option(help: "URL-token key file (`iapcontent keygen --token-key`); protects archives/*.")
    package var tokenKey: String?

    /// `--quiet` / `--verbose`.
    @OptionGroup package var global: GlobalOptions

    /// Defaults (argument-parser fills the fields).
    package init() {}
}
