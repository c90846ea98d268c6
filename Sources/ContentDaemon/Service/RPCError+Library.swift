internal import ContentDownloads

extension RPCError {
    /// A thrown error as a client reads it: the library's errors become -32000 with their stable code; the
    /// daemon's own ``RPCError``s stay as they are.
    static func from(_ error: any Error) -> RPCError {
        switch error {
        case let error as RPCError:
            return error
        case let error as DownloadError:
            return .refused(code: error.code.rawValue, message: error.message)
        case let error as QueueError:
            return .refused(code: error.code, message: error.description)
        case let error as InstallError:
            return .refused(code: "install", message: error.description)
        case let error as DriverLockError:
            return .refused(code: "storeBusy", message: error.description)
        case let error as DaemonError:
            return .refused(code: "daemon", message: error.description)
        case is CancellationError:
            return .internalError("the daemon is stopping; send the request again once it runs")
        default:
            return .internalError("\(error)")
        }
    }
}

extension QueueError {
    /// The case's name: a stable code for clients.
    var code: String {
        switch self {
        case .downloadsInFlight: "downloadsInFlight"
        case .unknownTransaction: "unknownTransaction"
        case .unknownProduct: "unknownProduct"
        case .noHostedContent: "noHostedContent"
        case .journal: "journal"
        case .noTransaction: "noTransaction"
        case .downloadCancelled: "downloadCancelled"
        case .closed: "closed"
        }
    }
}
