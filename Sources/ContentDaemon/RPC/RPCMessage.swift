internal import Foundation

/// The lines the daemon writes: responses, errors and notifications, each one JSON object and a newline.
enum RPCMessage {
    private struct Response<Result: Encodable>: Encodable {
        let jsonrpc = "2.0"
        let id: JSONValue
        let result: Result
    }

    private struct ErrorResponse: Encodable {
        let jsonrpc = "2.0"
        let id: JSONValue
        let error: RPCError
    }

    private struct Notification<Params: Encodable>: Encodable {
        let jsonrpc = "2.0"
        let method: String
        let params: Params
    }

    /// `{"jsonrpc":"2.0","id":…,"result":…}\n`.
    static func response(id: JSONValue, result: some Encodable) -> [UInt8] {
        do { return try line(Response(id: id, result: result)) } catch {
            return self.error(.internalError("the result could not be encoded: \(error)").answering(id))
        }
    }

    /// `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data":…}}\n`.
    static func error(_ error: RPCError) -> [UInt8] {
        // An error object of strings and numbers always encodes.
        (try? line(ErrorResponse(id: error.id, error: error))) ?? Array(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}"#.utf8) + [10]
    }

    /// `{"jsonrpc":"2.0","method":…,"params":…}\n` (no id: nothing answers it).
    static func notification(_ method: String, params: some Encodable) throws -> [UInt8] {
        try line(Notification(method: method, params: params))
    }

    private static func line(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        var bytes = Array(try encoder.encode(value))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
