internal import ContentDownloads

extension RPCError {
    /// A thrown error as a client reads it: the library's errors (``ContentError``) become -32000 with their stable
    /// code; the daemon's own ``RPCError``s stay as they are.
    static func from(_ error: any Error) -> RPCError {
        switch error {
        case let error as RPCError:
            return error
        case let error as any ContentError:
            return .refused(code: error.errorCode, message: error.description)
        case is CancellationError:
            return .internalError("the daemon is stopping; send the request again once it runs")
        default:
            return .internalError("\(error)")
        }
    }
}
