import Foundation
import Glibc
import Testing
import TestSupport

/// The examples in `Examples/` run against a real daemon: the Python client buys a product and prints its
/// folder, the Node.js one does the same from the OpenRPC document (with a batch), the shell one asks for the
/// status with socat.
@Suite("Daemon: the examples", .serialized)
struct DaemonExampleTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples")

    @Test func thePythonClientBuysAProductAndPrintsItsFolder() async throws {
        let script = Self.examples.appendingPathComponent("python-client/client.py").path
        #expect(try String(contentsOfFile: script, encoding: .utf8).split(separator: "\n").count <= 60)
        try Self.buyWithExampleClient("/usr/bin/python3", script, productID: "com.example.python", transactionID: "t-python")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/node"), "needs Node.js (/usr/bin/node)"))
    func theNodeClientBuysAProductInABatchAndPrintsItsFolder() async throws {
        let script = Self.examples.appendingPathComponent("node-client/client.js").path
        try Self.buyWithExampleClient("/usr/bin/node", script, productID: "com.example.node", transactionID: "t-node")
    }

    /// Runs an example client (`interpreter script productID transactionID socket`) against a daemon serving a
    /// throttled product: it draws a progress bar, prints `<product>: <folder>` last, the folder holds exactly what
    /// was published, and the client finished its transaction.
    static func buyWithExampleClient(
        _ interpreter: String, _ script: String, productID: String, transactionID: String
    ) throws {
        let fixture = try DaemonFixture(locationConfig: "limit_rate 512k;")
        let source = try fixture.publish(productID, size: 3 << 20)
        let daemon = try fixture.startDaemon()
        _ = try RPCTestClient(path: fixture.socketPath)  // it listens
        let run = try CommandRunner.run(interpreter, [script, productID, transactionID, fixture.socketPath])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr) \(daemon.output)")
        #expect(run.stdout.contains("[####"), "a progress bar was drawn: \(run.stdout)")
        let printed = try #require(run.stdoutLines.last)
        let folder = try #require(printed.split(separator: " ").last.map(String.init), "\(printed)")
        #expect(printed == "\(productID): \(folder)")
        #expect(try sameTree(source.path, folder))
        // It finished its transaction: nothing is left unfinished.
        let status = try RPCTestClient(path: fixture.socketPath).result("status")
        #expect((status["transactions"] as? [Any])?.isEmpty == true, "\(status)")
        #expect(daemon.stop() == 0)
    }

    @Test func theShellClientPrintsTheStatus() async throws {
        let fixture = try DaemonFixture()
        let daemon = try fixture.startDaemon()
        _ = try RPCTestClient(path: fixture.socketPath)
        let run = try CommandRunner.run("/bin/sh", [Self.examples.appendingPathComponent("shell-client/status.sh").path, fixture.socketPath])
        #expect(run.status == 0, "\(run.stderr)")
        let reply = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(reply?["id"] as? Int == 1)
        #expect((reply?["result"] as? [String: Any])?["installed"] != nil, "\(run.stdout)")
        #expect(daemon.stop() == 0)
    }
}
