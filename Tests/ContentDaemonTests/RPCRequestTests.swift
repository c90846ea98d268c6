@testable import ContentDaemon
import Foundation
import Testing

@Suite("Daemon: JSON-RPC request parsing")
struct RPCRequestTests {
    static func parse(_ text: String) -> Result<RPCRequest, RPCError> { RPCRequest.parse(Array(text.utf8)) }

    @Test func aRequestKeepsItsIDMethodAndParams() throws {
        let request = try Self.parse(#"{"jsonrpc":"2.0","id":7,"method":"pause","params":{"productID":"a"}}"#).get()
        #expect(request == RPCRequest(id: .integer(7), method: "pause", params: .object(["productID": .string("a")])))
        #expect(try request.decodeParams(MethodParams.Product.self).productID == "a")
        let notification = try Self.parse(#"{"jsonrpc":"2.0","method":"status"}"#).get()
        #expect(notification.id == nil)
    }

    @Test("bad input gets the JSON-RPC code for it", arguments: [
        ("{not json", -32700),
        ("[1,2]", -32600),
        ("42", -32600),
        (#"{"id":1,"method":"status"}"#, -32600),
        (#"{"jsonrpc":"2.0","id":1}"#, -32600),
        (#"{"jsonrpc":"2.0","id":[1],"method":"status"}"#, -32600),
        (#"{"jsonrpc":"2.0","id":1,"method":"status","params":3}"#, -32600),
    ])
    func badInput(text: String, code: Int) {
        guard case .failure(let error) = Self.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(error.code == code, "\(text): \(error.message)")
    }

    @Test func wrongParamsNameTheMember() throws {
        let missing = try Self.parse(#"{"jsonrpc":"2.0","id":"x","method":"add","params":{"productID":"a"}}"#).get()
        #expect(throws: RPCError.invalidParams("add: missing \"transactionID\"")) {
            try missing.decodeParams(MethodParams.Add.self)
        }
        let wrongType = try Self.parse(#"{"jsonrpc":"2.0","id":"x","method":"pause","params":{"productID":5}}"#).get()
        #expect(throws: RPCError.invalidParams("pause: \"productID\" must be a string")) {
            try wrongType.decodeParams(MethodParams.Product.self)
        }
        let positional = try Self.parse(#"{"jsonrpc":"2.0","id":"x","method":"pause","params":["a"]}"#).get()
        #expect(throws: RPCError.self) { try positional.decodeParams(MethodParams.Product.self) }
    }
}
