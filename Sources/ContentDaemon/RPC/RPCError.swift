/// A JSON-RPC 2.0 error object: the standard codes, and -32000 for a refusal by the library, whose stable
/// code (``RPCError/ErrorData/code``) a client branches on.
struct RPCError: Error, Equatable, Sendable, Encodable {
    /// JSON-RPC's number.
    var code: Int
    /// What happened and what to do, in a person's words.
    var message: String
    /// The library's stable code for a refusal (-32000), absent otherwise.
    var data: ErrorData?
    /// The id of the request it answers (null when it could not be read). Not encoded in the error object.
    var id: JSONValue = .null

    /// The `data` member of a refusal.
    struct ErrorData: Equatable, Sendable, Encodable {
        /// A stable name: `unknownProduct`, `downloadsInFlight`, `checksumMismatch`, …
        var code: String
    }

    enum CodingKeys: String, CodingKey { case code, message, data }

    /// -32700: the line is not JSON.
    static let parseError = RPCError(code: -32700, message: "parse error: the line is not JSON; send one JSON-RPC 2.0 request object per line")

    /// -32600: JSON, but not a request.
    static func invalidRequest(_ reason: String, id: JSONValue) -> RPCError {
        RPCError(code: -32600, message: "invalid request: \(reason)", id: id)
    }

    /// -32600: a line longer than the limit (its bytes were skipped up to the next newline).
    static func oversized(limit: Int) -> RPCError {
        RPCError(code: -32600, message: "invalid request: a request is at most \(limit) bytes; the line was skipped")
    }

    /// -32601.
    static func methodNotFound(_ method: String, known: [String]) -> RPCError {
        RPCError(code: -32601, message: "method not found: \(method); methods: \(known.joined(separator: ", "))")
    }

    /// -32602.
    static func invalidParams(_ reason: String) -> RPCError {
        RPCError(code: -32602, message: "invalid params: \(reason)")
    }

    /// -32603: a failure of the daemon itself.
    static func internalError(_ reason: String) -> RPCError {
        RPCError(code: -32603, message: "internal error: \(reason)")
    }

    /// -32000: the library refused or failed; `code` is its stable name.
    static func refused(code: String, message: String) -> RPCError {
        RPCError(code: -32000, message: message, data: ErrorData(code: code))
    }

    /// -32001: the peer runs as another user.
    static func forbidden(peerUID: UInt32, ownUID: UInt32) -> RPCError {
        RPCError(
            code: -32001,
            message: "permission denied: this daemon serves uid \(ownUID) only and the connection comes from uid \(peerUID); run your own daemon as that user")
    }

    /// This error with the id of the request it answers.
    func answering(_ id: JSONValue?) -> RPCError {
        var copy = self
        copy.id = id ?? .null
        return copy
    }
}
