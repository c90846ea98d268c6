import Foundation
import Glibc

/// A test's side of the socket: connects, writes lines, reads lines with a deadline. Notifications read while
/// waiting for a response are kept in ``notifications``.
final class RPCTestClient: @unchecked Sendable {  // one task at a time
    let fd: Int32
    private var buffer: [UInt8] = []
    /// Notifications seen so far, in order.
    var notifications: [[String: Any]] = []
    /// True once the daemon closed the connection.
    private(set) var closedByPeer = false
    private var nextID = 1

    /// Connects to `path`, retrying for up to `timeout` seconds while the daemon starts.
    init(path: String, timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if result == 0 {
                self.fd = fd
                return
            }
            close(fd)
            guard Date() < deadline else { throw DaemonTestError("cannot connect to \(path): \(String(cString: strerror(errno)))") }
            usleep(50_000)
        }
    }

    deinit { close(fd) }

    /// Writes `text` (a newline is added) completely.
    func send(_ text: String) {
        sendBytes(Array((text + "\n").utf8))
    }

    /// Writes raw bytes completely (ignores a peer that has gone).
    func sendBytes(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Sends a request with a fresh id; returns the id.
    @discardableResult
    func request(_ method: String, _ params: [String: Any] = [:]) -> Int {
        let id = nextID
        nextID += 1
        let object: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method, "params": params]
        let data = try! JSONSerialization.data(withJSONObject: object)
        send(String(decoding: data, as: UTF8.self))
        return id
    }

    /// Sends a request and waits for its response (notifications meanwhile go to ``notifications``).
    func call(_ method: String, _ params: [String: Any] = [:], timeout: Double = 30) throws -> [String: Any] {
        let id = request(method, params)
        while let message = readMessage(timeout: timeout) {
            if message["id"] as? Int == id { return message }
            if message["method"] != nil { notifications.append(message) }
        }
        throw DaemonTestError("no response to \(method) (id \(id)) within \(timeout) s; closed: \(closedByPeer)")
    }

    /// The result of a call that must succeed.
    func result(_ method: String, _ params: [String: Any] = [:], timeout: Double = 30) throws -> [String: Any] {
        let response = try call(method, params, timeout: timeout)
        guard let result = response["result"] as? [String: Any] else { throw DaemonTestError("\(method) failed: \(response)") }
        return result
    }

    /// Reads notifications until `predicate` holds for one (returned) or `timeout` passes (nil).
    func waitForNotification(timeout: Double = 60, _ predicate: ([String: Any]) -> Bool) -> [String: Any]? {
        if let seen = notifications.first(where: predicate) { return seen }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, let message = readMessage(timeout: deadline.timeIntervalSinceNow) {
            guard message["method"] != nil else { continue }
            notifications.append(message)
            if predicate(message) { return message }
        }
        return nil
    }

    /// The next whole line as JSON, or nil on timeout, end of stream or a line that is not a JSON object.
    func readMessage(timeout: Double) -> [String: Any]? {
        guard let line = readLine(timeout: timeout) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
    }

    /// The next whole line, or nil on timeout or end of stream.
    func readLine(timeout: Double) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(max(0, timeout))
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, !closedByPeer else { return nil }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(min(remaining * 1000, 1000)) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 {
                closedByPeer = true
                return nil
            }
            buffer += chunk[0..<n]
        }
    }

    /// Reads until the daemon closes the connection (true) or `timeout` passes (false), discarding what arrives.
    func waitForClose(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if readLine(timeout: deadline.timeIntervalSinceNow) == nil, closedByPeer { return true }
        }
        return closedByPeer
    }
}

/// A failed expectation about the daemon, with what was seen.
struct DaemonTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The error member of a response: (code, message, data.code).
func rpcError(_ response: [String: Any]) -> (code: Int, message: String, dataCode: String?)? {
    guard let error = response["error"] as? [String: Any], let code = error["code"] as? Int else { return nil }
    return (code, error["message"] as? String ?? "", (error["data"] as? [String: Any])?["code"] as? String)
}
