internal import Foundation

/// One line a client sent: a request (or notification), or a JSON-RPC 2.0 batch — an array of them, answered by
/// one array holding the answers of its calls with an id (section 6 of the specification).
enum RPCLine: Sendable, Equatable {
    /// One request object, or why the line is not one (-32700 not JSON, -32600 not a request).
    case single(Result<RPCRequest, RPCError>)
    /// A non-empty array: each member read as a request, or the -32600 error it gets (never a notification, so
    /// always answered).
    case batch([Result<RPCRequest, RPCError>])

    /// Reads a line. Invalid JSON is one -32700 error, even when it starts as an array; `[]` is one -32600 error.
    static func parse(_ line: [UInt8]) -> RPCLine {
        let value: JSONValue
        do { value = try JSONDecoder().decode(JSONValue.self, from: Data(line)) } catch {
            return .single(.failure(.parseError))
        }
        guard case .array(let members) = value else { return .single(RPCRequest.parse(value: value)) }
        guard !members.isEmpty else {
            return .single(.failure(.invalidRequest("an empty batch: send at least one request in the array", id: .null)))
        }
        return .batch(members.map(RPCRequest.parse(value:)))
    }
}
