import Foundation
import Testing
import TestSupport

/// Every example of section 7 of the JSON-RPC 2.0 specification, sent to the daemon and answered as the
/// specification says. The examples' methods (`subtract`, `sum`, `update`, `notify_hello`, `get_data`) are not the
/// daemon's, so the daemon's own take their places (`status`, and `content` for named params); `foobar` and
/// `foo.get` stay, as methods that do not exist.
@Suite("Daemon: JSON-RPC 2.0 batches and the specification's examples", .serialized)
struct DaemonBatchTests {
    static let productID = "com.example.batch"

    /// What the specification says comes back.
    enum Answer {
        /// A response with a result, for this id.
        case result(id: String)
        /// An error response with this code and id (`nil`: null).
        case error(code: Int, id: String?)
    }

    @Test func everySection7ExampleIsAnsweredAsTheSpecificationSays() async throws {
        let fixture = try DaemonFixture()
        try fixture.publish(Self.productID, size: 4096)
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)
        let content = #"{"jsonrpc":"2.0","method":"content","params":{"productID":"\#(Self.productID)"},"id":"#

        // rpc call with positional parameters (our methods take theirs by name: a call without any)
        try expect(client, #"{"jsonrpc":"2.0","method":"status","id":1}"#, single: .result(id: "1"))
        try expect(client, #"{"jsonrpc":"2.0","method":"status","id":2}"#, single: .result(id: "2"))
        // rpc call with named parameters
        try expect(client, content + "3}", single: .result(id: "3"))
        try expect(client, content + "4}", single: .result(id: "4"))
        // a notification
        try expectNothing(client, #"{"jsonrpc":"2.0","method":"status","params":{}}"#)
        try expectNothing(client, #"{"jsonrpc":"2.0","method":"foobar"}"#)
        // rpc call of non-existent method
        try expect(client, #"{"jsonrpc":"2.0","method":"foobar","id":"1"}"#, single: .error(code: -32601, id: "1"))
        // rpc call with invalid JSON
        try expect(client, #"{"jsonrpc":"2.0","method":"foobar, "params":"bar","baz]"#, single: .error(code: -32700, id: nil))
        // rpc call with invalid Request object
        try expect(client, #"{"jsonrpc":"2.0","method":1,"params":"bar"}"#, single: .error(code: -32600, id: nil))
        // rpc call Batch, invalid JSON
        try expect(client, #"[{"jsonrpc":"2.0","method":"status","id":"1"},{"jsonrpc":"2.0","method"]"#, single: .error(code: -32700, id: nil))
        // rpc call with an empty Array
        try expect(client, "[]", single: .error(code: -32600, id: nil))
        // rpc call with an invalid Batch (but not empty)
        try expect(client, "[1]", batch: [.error(code: -32600, id: nil)])
        // rpc call with invalid Batch
        try expect(client, "[1,2,3]", batch: Array(repeating: .error(code: -32600, id: nil), count: 3))
        // rpc call Batch
        let mixed = "[" + [
            #"{"jsonrpc":"2.0","method":"status","id":"1"}"#, #"{"jsonrpc":"2.0","method":"status","params":{}}"#,
            content + #""2"}"#, #"{"foo":"boo"}"#, #"{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"}"#,
            #"{"jsonrpc":"2.0","method":"status","id":"9"}"#,
        ].joined(separator: ",") + "]"
        try expect(client, mixed, batch: [
            .result(id: "1"), .result(id: "2"), .error(code: -32600, id: nil), .error(code: -32601, id: "5"), .result(id: "9"),
        ])
        // rpc call Batch (all notifications)
        try expectNothing(client, #"[{"jsonrpc":"2.0","method":"status","params":{}},{"jsonrpc":"2.0","method":"status"}]"#)
        #expect(daemon.stop() == 0)
    }

    private func expect(_ client: RPCTestClient, _ text: String, single answer: Answer) throws {
        client.send(text)
        let line = try #require(client.readLine(timeout: 10), "no answer to \(text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], "\(text) → \(String(decoding: line, as: UTF8.self))")
        check(object, answer, text)
    }

    private func expect(_ client: RPCTestClient, _ text: String, batch answers: [Answer]) throws {
        client.send(text)
        let line = try #require(client.readLine(timeout: 10), "no answer to \(text)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [[String: Any]], "\(text) → \(String(decoding: line, as: UTF8.self))")
        try #require(array.count == answers.count, "\(text) → \(array)")
        // The specification lets the answers come in any order: matched by id, then errors without one in order.
        var left = array
        for answer in answers {
            let id: String? = switch answer { case .result(let id): id; case .error(_, let id): id }
            let index = try #require(left.firstIndex { idText($0["id"]) == id }, "no answer with id \(id ?? "null") in \(array)")
            check(left.remove(at: index), answer, text)
        }
    }

    /// Sends `text`, then a call: its answer must come next (nothing answered `text`).
    private func expectNothing(_ client: RPCTestClient, _ text: String) throws {
        client.send(text)
        client.send(#"{"jsonrpc":"2.0","method":"status","id":"after"}"#)
        let line = try #require(client.readLine(timeout: 10), "no answer after \(text)")
        let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        #expect(object?["id"] as? String == "after", "\(text) was answered: \(String(decoding: line, as: UTF8.self))")
    }

    private func check(_ object: [String: Any], _ answer: Answer, _ text: String) {
        #expect(object["jsonrpc"] as? String == "2.0", "\(text) → \(object)")
        switch answer {
        case .result(let id):
            #expect(idText(object["id"]) == id && object["result"] != nil && object["error"] == nil, "\(text) → \(object)")
        case .error(let code, let id):
            #expect(idText(object["id"]) == id && object["result"] == nil, "\(text) → \(object)")
            #expect((object["error"] as? [String: Any])?["code"] as? Int == code, "\(text) → \(object)")
        }
    }

    /// An id as text (`nil` for null or absent); numbers as their digits.
    private func idText(_ value: Any?) -> String? {
        switch value {
        case let text as String: text
        case let number as Int: String(number)
        default: nil
        }
    }
}
