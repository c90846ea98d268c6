internal import Logging

/// The library's loggers (swift-log): what a transfer, the queue and the installer decided, and why.
///
/// Where lines go is the host's choice (`LoggingSystem.bootstrap`; the CLI sends them to stderr, `-v` for
/// debug, `-vv` for trace). Without a bootstrap, swift-log's default handler prints info and above to stderr,
/// which here means only the errors and warnings below; the library never writes to stderr by itself. Labels let a host route each part:
/// `iapcontent.transfer` (start, resume or restart, retry with its reason, verified, stopped),
/// `iapcontent.queue` (transactions, recovery), `iapcontent.install` (install phases). Decisions log at
/// debug level (what a caller already reports as state changes stays out of its default output); only
/// problems the caller cannot see otherwise (a journal write that failed) log as errors or warnings.
enum DownloadLog {
    /// Transfers: admission, range decisions, retries, verification, stops.
    static let transfer = Logger(label: "iapcontent.transfer")
    /// The content queue: transactions and what recovery found.
    static let queue = Logger(label: "iapcontent.queue")
    /// The installer: extracting, swapped, cleaned, and installs from a kept archive.
    static let install = Logger(label: "iapcontent.install")
}
