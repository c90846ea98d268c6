public import ContentDownloads

/// Why the daemon could not start, or a client could not reach it, with what to do next.
public enum DaemonError: ContentError, Equatable {
    /// The socket could not be made, bound or read.
    case socket(path: String, reason: String)
    /// Another daemon answers on the socket path.
    case socketInUse(path: String)
    /// No socket path given and `$XDG_RUNTIME_DIR` unset.
    case noRuntimeDirectory
    /// Another process (a daemon or `iapcontent download`) drives the store.
    case storeBusy(store: String, pid: Int32?)
    /// Nothing listens on the socket (no daemon runs, or it was killed).
    case notRunning(socket: String, reason: String)
    /// The daemon's reply could not be read.
    case badReply(String)

    /// What happened and what to do.
    public var description: String {
        switch self {
        case .socket(let path, let reason):
            "cannot use the socket \(path): \(reason)"
        case .socketInUse(let path):
            "another daemon answers on \(path); stop it, or give this one another --socket"
        case .noRuntimeDirectory:
            "XDG_RUNTIME_DIR is not set, so there is no default socket; pass --socket PATH (or start it from the systemd user units)"
        case .storeBusy(let store, let pid):
            "the store \(store) is already driven by pid \(pid.map(String.init) ?? "?") (a daemon or a download); one daemon per store — talk to the running one, or stop it first"
        case .notRunning(let socket, let reason):
            "no daemon answers on \(socket) (\(reason)); start one with `iapcontent daemon`"
        case .badReply(let reason):
            "the daemon's reply could not be read: \(reason)"
        }
    }

    /// The case's name: `socket`, `socketInUse`, `noRuntimeDirectory`, `storeBusy`, `notRunning`, `badReply`.
    public var errorCode: String {
        switch self {
        case .socket: "socket"
        case .socketInUse: "socketInUse"
        case .noRuntimeDirectory: "noRuntimeDirectory"
        case .storeBusy: "storeBusy"
        case .notRunning: "notRunning"
        case .badReply: "badReply"
        }
    }
}
