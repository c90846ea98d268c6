public import ContentDownloads
internal import Foundation
internal import Glibc

/// A short-lived connection to the daemon serving a store, for commands that act on a running queue
/// (`iapcontent pause|resume|cancel|status`): one request, one reply, blocking, with a timeout.
public struct DaemonClient: Sendable {
    /// The socket it talks to.
    public let socketPath: String
    /// Seconds to wait for a reply.
    public var timeout: Double = 30

    /// A client for `socketPath` (nothing is connected until a call).
    public init(socketPath: String) { self.socketPath = socketPath }

    /// The daemon serving `store`, when one runs: the socket path it recorded in the store answers.
    public static func running(for store: Store) -> DaemonClient? {
        guard let text = try? String(contentsOf: store.daemonSocketFile, encoding: .utf8) else { return nil }
        let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !path.isEmpty, let fd = try? UnixSocket.connect(path: path) else { return nil }
        close(fd)
        return DaemonClient(socketPath: path)
    }

    /// What a control call did: the download's state afterwards, or the daemon's refusal.
    public enum ControlOutcome: Sendable, Equatable {
        /// Applied; the download is now in this state.
        case applied(DownloadState)
        /// No unfinished transaction downloads the product.
        case unknownDownload
    }

    /// Pauses, resumes or cancels the download of `productID` in the running queue.
    public func send(_ command: RequestedCommand, productID: String) throws(DaemonError) -> ControlOutcome {
        let reply: Reply<ContentDownload> = try call(command.rawValue, params: ["productID": productID])
        if let error = reply.error {
            if error.data?.code == "unknownDownload" { return .unknownDownload }
            throw .badReply(error.message)
        }
        guard let state = reply.result?.state else {
            throw .badReply("no download in the reply to \(command.rawValue)")
        }
        return .applied(state)
    }

    /// `snapshots` (read from the journal, which trails the transfer by up to a checkpoint) with the running
    /// queue's live state, bytes, progress, time remaining and error for each download it drives.
    public func live(_ snapshots: [DownloadSnapshot]) throws(DaemonError) -> [DownloadSnapshot] {
        let reply: Reply<StatusReply> = try call("status", params: [:])
        guard let status = reply.result else { throw .badReply(reply.error?.message ?? "no result") }
        var live: [String: ContentDownload] = [:]
        for download in status.transactions.flatMap(\.downloads) { live[download.productID] = download }
        return snapshots.map { snapshot in
            guard let download = live[snapshot.productID], download.contentVersion == snapshot.contentVersion else { return snapshot }
            var updated = snapshot
            updated.state = download.state
            updated.downloadedBytes = download.snapshot.downloadedBytes
            updated.progress = download.progress
            updated.timeRemaining = download.timeRemaining
            updated.error = download.error
            return updated
        }
    }

    /// One request and its reply on a fresh connection.
    private func call<Result: Decodable>(_ method: String, params: [String: String]) throws(DaemonError) -> Reply<Result> {
        let fd = try UnixSocket.connect(path: socketPath)
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let request: [String: Any] = ["jsonrpc": "2.0", "id": 1, "method": method, "params": params]
        guard var bytes = try? Array(JSONSerialization.data(withJSONObject: request)) else { throw .badReply("cannot encode \(method)") }
        bytes.append(UInt8(ascii: "\n"))
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw .notRunning(socket: socketPath, reason: UnixSocket.lastError())
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !received.contains(UInt8(ascii: "\n")) {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw .badReply(n == 0 ? "the daemon closed the connection" : "no reply within \(Int(timeout)) s") }
            received += chunk[0..<n]
        }
        let line = received.prefix { $0 != UInt8(ascii: "\n") }
        do { return try JSONDecoder().decode(Reply<Result>.self, from: Data(line)) } catch {
            throw .badReply("\(error)")
        }
    }

    /// A response as read back.
    private struct Reply<Result: Decodable>: Decodable {
        var result: Result?
        var error: ReplyError?
    }

    private struct ReplyError: Decodable {
        var message: String
        var data: RPCErrorData?
    }

    private struct RPCErrorData: Decodable { var code: String }

    private struct StatusReply: Decodable {
        var transactions: [Transaction]
        struct Transaction: Decodable { var downloads: [ContentDownload] }
    }
}
