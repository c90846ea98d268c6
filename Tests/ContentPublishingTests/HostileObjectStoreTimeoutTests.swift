@testable import ContentPublishing
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A server that never answers, or never accepts, stops `publish` and `prune` within the client's connect or stall
/// time with a message saying which timed out, after one request (a timeout is not retried).
@Suite("Hostile object store: timeouts")
struct HostileObjectStoreTimeoutTests {
    /// A client of `s3://bkt/store` at `endpoint` with 1-second timeouts.
    static func client(_ endpoint: String) throws -> ObjectStoreClient {
        let location = try ObjectStoreLocation("s3://bkt/store", endpoint: endpoint, region: "us-east-1", environment: [:])
        let client = ObjectStoreClient(location: location, credentials: ObjectStoreCredentials(accessKeyID: "a", secretAccessKey: "s"))
        client.connectTimeout = 1
        client.stallTimeout = 1
        return client
    }

    @Test func defaultsAreFifteenSecondsToConnectAndThirtyToStall() throws {
        let client = try Self.client("http://127.0.0.1:9")
        let fresh = ObjectStoreClient(location: client.location, credentials: ObjectStoreCredentials(accessKeyID: "a", secretAccessKey: "s"))
        #expect(fresh.connectTimeout == 15)
        #expect(fresh.stallTimeout == 30)
    }

    @Test func serverThatNeverAnswersStallsOutOnce() throws {
        let server = try HostileObjectStoreServer(lifetime: 30) { _ in .silence }
        defer { server.stop() }
        let client = try Self.client(server.endpoint)
        let start = Date()
        let error = #expect(throws: PublishError.self) { _ = try client.get("catalog.json") }
        let elapsed = Date().timeIntervalSince(start)
        #expect(error?.message.contains("GET s3://bkt/store/catalog.json stalled") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("less than 1 byte a second for 1 s (stall timeout)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(server.endpoint) == true, "\(error?.message ?? "")")
        #expect(elapsed < 8, "took \(elapsed) s")
        #expect(server.requests.count == 1, "\(server.requests)")
    }

    @Test func pruneAgainstASilentServerStops() throws {
        let server = try HostileObjectStoreServer(lifetime: 30) { _ in .silence }
        defer { server.stop() }
        var pruner = CatalogPruner(client: try Self.client(server.endpoint), keep: 1)
        pruner.minimumAge = 0
        let start = Date()
        let error = #expect(throws: PublishError.self) { _ = try pruner.prune() }
        #expect(error?.message.contains("(stall timeout)") == true, "\(error?.message ?? "")")
        #expect(Date().timeIntervalSince(start) < 8)
        #expect(server.deletes.isEmpty)
    }

    @Test func serverThatNeverAcceptsTimesOutConnecting() throws {
        // A listener with a full accept queue that never accepts: the kernel drops the next SYN, so connect hangs.
        let (listener, port) = try LoopbackListener.open(backlog: 0)
        defer { close(listener) }
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(filler) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let client = try Self.client("http://127.0.0.1:\(port)")
        let start = Date()
        let error = #expect(throws: PublishError.self) { _ = try client.get("catalog.json") }
        #expect(error?.message.contains("no connection to http://127.0.0.1:\(port) within 1 s (connect timeout)") == true, "\(error?.message ?? "")")
        #expect(Date().timeIntervalSince(start) < 8)
    }
}
