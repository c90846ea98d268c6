import Foundation
import Glibc
import Testing
import TestSupport

/// Bad input gets a JSON-RPC error and nothing else breaks: after each case a fresh request on the same
/// daemon (and, where the connection survives, on the same connection) is answered.
@Suite("Daemon: bad input", .serialized)
struct DaemonBadInputTests {
    @Test func eachBadInputGetsItsErrorAndTheDaemonCarriesOn() async throws {
        let fixture = try DaemonFixture()
        try fixture.publish("com.example.bad", size: 64 << 10)
        let daemon = try fixture.startDaemon()
        let client = try RPCTestClient(path: fixture.socketPath)

        client.send("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ")  // cut short
        #expect(client.readMessage(timeout: 10).flatMap(rpcError)?.code == -32700)
        client.send(#"{"jsonrpc":"2.0","id":2,"method":"fly"}"#)
        let unknown = client.readMessage(timeout: 10)
        #expect(unknown.flatMap(rpcError)?.code == -32601)
        #expect(unknown?["id"] as? Int == 2)
        client.send(#"{"jsonrpc":"2.0","id":3,"method":"add","params":{"productID":7}}"#)
        #expect(client.readMessage(timeout: 10).flatMap(rpcError)?.code == -32602)
        let refused = try client.call("pause", ["productID": "com.example.nothing"])
        #expect(rpcError(refused)?.code == -32000)
        #expect(rpcError(refused)?.dataCode == "unknownDownload")
        let unknownProduct = try client.call("add", ["transactionID": "t", "productID": "com.example.absent"])
        #expect(rpcError(unknownProduct)?.dataCode == "unknownProduct")

        // Over 1 MiB: one error, the line skipped, the connection still usable.
        var huge = Array(#"{"jsonrpc":"2.0","id":4,"method":"status","params":{"pad":""#.utf8)
        huge += [UInt8](repeating: UInt8(ascii: "x"), count: (1 << 20) + 100)
        huge += Array("\"}}\n".utf8)
        client.sendBytes(huge)
        let oversized = client.readMessage(timeout: 20)
        #expect(oversized.flatMap(rpcError)?.code == -32600, "\(String(describing: oversized))")
        #expect(try client.result("status")["transactions"] != nil)

        // 1 000 pipelined requests: 1 000 answers, in order.
        var batch = ""
        for id in 1000..<2000 { batch += #"{"jsonrpc":"2.0","id":\#(id),"method":"status"}"# + "\n" }
        client.sendBytes(Array(batch.utf8))
        var ids: [Int] = []
        while ids.count < 1000, let message = client.readMessage(timeout: 30) {
            if let id = message["id"] as? Int, message["result"] != nil { ids.append(id) }
        }
        #expect(ids == Array(1000..<2000))

        // A client that disconnects in the middle of a request, and one that sends half a line and goes.
        do {
            let leaving = try RPCTestClient(path: fixture.socketPath)
            leaving.request("verify", ["productID": "com.example.bad"])
            let half = try RPCTestClient(path: fixture.socketPath)
            half.sendBytes(Array(#"{"jsonrpc":"2.0","id":1,"me"#.utf8))
        }
        #expect(try client.result("status")["installed"] != nil)

        // A notification (no id) is carried out and answered with nothing.
        client.send(#"{"jsonrpc":"2.0","method":"status"}"#)
        #expect(try client.call("status")["result"] != nil)

        #expect(daemon.process.isRunning, "\(daemon.output)")
        #expect(daemon.stop() == 0, "\(daemon.output)")
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to run a client as another user (setpriv --reuid)"))
    func anotherUserIsRefusedWithAnError() async throws {
        let fixture = try DaemonFixture()
        let daemon = try fixture.startDaemon()
        _ = try RPCTestClient(path: fixture.socketPath)  // it listens
        // Let uid 65534 reach the socket file (mode 0600 otherwise stops it at connect): the peer check must refuse it.
        chmod(fixture.root.path, 0o755)
        chmod(URL(fileURLWithPath: fixture.socketPath).deletingLastPathComponent().path, 0o755)
        chmod(fixture.socketPath, 0o666)
        // The client prints every byte it got, then how the connection ended: closed by the daemon, or still open
        // when its 10 s ran out (a daemon that answers, or never closes, must not pass by printing nothing).
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"status"}\\n')
            data = b''
            end = 'closed'
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
            except socket.timeout:
                end = 'still open after 10 s'
            except OSError as error:
                end = 'failed: %s' % error
            sys.stdout.write(data.decode('utf-8', 'replace'))
            sys.stdout.write('\\n-- %s\\n' % end)
            """
        let result = try CommandRunner.run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, fixture.socketPath])
        let seen = "\(result.stdout) \(result.stderr)"
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == "-- closed", "the daemon must close the connection after its refusal: \(seen)")
        let replies = lines.dropLast().filter { !$0.isEmpty }
        #expect(replies.count == 1, "one line, the refusal: \(seen)")
        let reply = try #require(replies.first, "no refusal arrived: \(seen)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any], "\(reply)")
        #expect(object["result"] == nil, "another user got an answer: \(reply)")
        let error = try #require(object["error"] as? [String: Any], "no error in \(reply)")
        #expect(error["code"] as? Int == -32001, "\(reply)")
        #expect(daemon.process.isRunning)
        #expect(daemon.stop() == 0, "\(daemon.output)")
    }
}
