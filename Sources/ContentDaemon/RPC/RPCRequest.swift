internal import Foundation

/// One JSON-RPC 2.0 request (or notification: no `id`) as read from a line.
struct RPCRequest: Sendable, Equatable {
    /// The id to echo; `nil` for a notification, which gets no reply.
    var id: JSONValue?
    /// The method name.
    var method: String
    /// The `params` member (an object or an array), `nil` when absent.
    var params: JSONValue?

    /// Parses one line. Invalid JSON is a parse error (-32700); JSON that is not a request object is an
    /// invalid request (-32600) carrying the id when one could be read.
    static func parse(_ line: [UInt8]) -> Result<RPCRequest, RPCError> {
        switch RPCLine.parse(line) {
        case .single(let result): result
        case .batch: .failure(.invalidRequest("a batch where one request was expected", id: .null))
        }
    }

    /// Reads one request object already decoded (a line's, or one member of a batch).
    static func parse(value: JSONValue) -> Result<RPCRequest, RPCError> {
        guard case .object(let members) = value else {
            return .failure(.invalidRequest("a request is a JSON object", id: .null))
        }
        let id = members["id"]
        switch id {
        case nil, .null?, .integer?, .string?: break
        default: return .failure(.invalidRequest("\"id\" must be a string, an integer or null", id: .null))
        }
        guard members["jsonrpc"] == .string("2.0") else {
            return .failure(.invalidRequest("\"jsonrpc\" must be \"2.0\"", id: id ?? .null))
        }
        guard case .string(let method)? = members["method"] else {
            return .failure(.invalidRequest("\"method\" must be a string", id: id ?? .null))
        }
        let params = members["params"]
        switch params {
        case nil, .object?, .array?: break
        default: return .failure(.invalidRequest("\"params\" must be an object or an array", id: id ?? .null))
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }

    /// The params as `P` (by name; absent params read as `{}`), or an invalid-params error naming what is wrong.
    func decodeParams<P: Decodable>(_ type: P.Type) throws(RPCError) -> P {
        let object: JSONValue
        switch params {
        case nil: object = .object([:])
        case .object?: object = params!
        default: throw RPCError.invalidParams("\(method) takes its params by name, as an object")
        }
        do {
            return try JSONDecoder().decode(P.self, from: JSONEncoder().encode(object))
        } catch let error as DecodingError {
            throw RPCError.invalidParams("\(method): \(Self.describe(error))")
        } catch {
            throw RPCError.invalidParams("\(method): \(error)")
        }
    }

    /// A decoding error in a person's words: which member is missing or of the wrong type.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
        case .typeMismatch(let type, let context): return "\"\(path(context))\" must be \(Self.name(type))"
        case .valueNotFound(let type, let context): return "\"\(path(context))\" must be \(Self.name(type)), not null"
        case .dataCorrupted(let context): return "\"\(path(context))\": \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    private static func name(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int64.Type, is Int.Type: "an integer"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }
}
