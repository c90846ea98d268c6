import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// One origin as many deployments run it: two web servers behind a round-robin balancer, the second filled by a
/// copy made at another time. Both nodes serve the same bytes under different ETags (nginx's is mtime + size):
/// the fixture's nginx is the first node, a second nginx serves a copy of its folder with other mtimes, and a
/// third nginx balances over the two.
final class OriginPool: @unchecked Sendable {
    let fixture: QueueFixture
    let second: Nginx
    let balancer: Nginx
    let copy: URL

    init(_ fixture: QueueFixture) throws {
        self.fixture = fixture
        copy = fixture.root.appendingPathComponent("second-node", isDirectory: true)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        second = try Nginx(root: copy)
        balancer = try Nginx(
            locationConfig: "proxy_pass http://pool;",
            httpConfig: "upstream pool { server 127.0.0.1:\(fixture.nginx.port); server 127.0.0.1:\(second.port); }")
    }

    deinit {
        balancer.stop()
        second.stop()
    }

    /// The catalog through the balancer.
    var catalogURL: String { balancer.baseURL + "/catalog.json" }

    /// Copies the first node's folder to the second with every file dated a year earlier (another ETag).
    func sync() throws {
        try? FileManager.default.removeItem(at: copy)
        let run = try CommandRunner.run("/bin/cp", ["-R", fixture.nginx.root.path, copy.path])
        try #require(run.status == 0, "\(run.stderr)")
        let older = Date().addingTimeInterval(-365 * 86_400)
        let files = FileManager.default.enumerator(at: copy, includingPropertiesForKeys: nil)!
        for case let file as URL in files {
            try FileManager.default.setAttributes([.modificationDate: older], ofItemAtPath: file.path)
        }
    }

    /// How many requests each node has logged so far.
    func marks() -> [Int] { [fixture.nginx.requests().count, second.requests().count] }

    /// Each node's `GET`s of `archive` (a file name under `archives/`) logged after `marks`: status, body bytes,
    /// `Range`.
    func archiveRequests(_ archive: String, after marks: [Int] = [0, 0]) -> [(node: Int, request: Nginx.LoggedRequest)] {
        [fixture.nginx, second].enumerated().flatMap { node, server in
            server.requests().dropFirst(marks[node])
                .filter { $0.request.hasPrefix("GET ") && $0.request.contains(archive) }.map { (node, $0) }
        }
    }

    /// The archive byte ranges the `GET`s of `archive` after `marks` asked for, over both nodes (`nil` for a
    /// request without `Range`).
    func askedRanges(_ archive: String, after marks: [Int]) -> [Range<Int>?] {
        archiveRequests(archive, after: marks).flatMap { _, request -> [Range<Int>?] in
            guard request.range.hasPrefix("bytes=") else { return [nil] }
            return request.range.dropFirst(6).split(separator: ",").map { spec in
                let bounds = spec.split(separator: "-", omittingEmptySubsequences: false)
                guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]) else { return nil }
                return first..<(last + 1)
            }
        }
    }
}

/// Archives are content-addressed and each chunk is checked against the signed manifest, so the nodes of an
/// origin pool may give the same bytes different ETags: a chunk-indexed download, an update and a repair through
/// the pool complete identical, every archive request answered 206, no byte asked for twice.
@Suite struct OriginPoolTests {
    /// After `marks`, the pool served `archive` only with 206s, and no archive byte was asked for twice.
    static func expectServedOnce(_ pool: OriginPool, _ archive: String, after marks: [Int], _ what: String) {
        let requests = pool.archiveRequests(archive, after: marks)
        #expect(!requests.isEmpty, "\(what): no archive request")
        #expect(Set(requests.map(\.request.status)) == [206], "\(what): \(requests.map { "\($0.node) \($0.request.status) \($0.request.range) \($0.request.ifRange)" })")
        #expect(requests.allSatisfy { $0.request.ifRange == "-" }, "\(what): a chunk request carried If-Range")
        let ranges = pool.askedRanges(archive, after: marks)
        #expect(!ranges.contains(nil), "\(what): a request without a range: \(ranges)")
        let sorted = ranges.compactMap { $0 }.sorted { $0.lowerBound < $1.lowerBound }
        for (earlier, later) in zip(sorted, sorted.dropFirst()) {
            #expect(earlier.upperBound <= later.lowerBound, "\(what): bytes \(later.lowerBound)..<\(earlier.upperBound) asked for twice")
        }
    }

    @Test func aDownloadAnUpdateAndARepairThroughAPoolOfNodesWithDifferentETags() async throws {
        let fixture = try QueueFixture()
        let versions = try DeltaVersions(fixture)
        let pool = try OriginPool(fixture)
        let id = DeltaVersions.productID
        try fixture.publish([versions.v1], chunked: true)
        try pool.sync()
        let store = fixture.root.appendingPathComponent("pool-store")

        let install = try await iapcontentOffPool(["download", id, "--catalog", pool.catalogURL, "--store", store.path])
        #expect(install.status == 0, "\(install.output)")
        let first = "\(try DeltaVersions.published(fixture).sha256).tar.zst"
        #expect(try diffTrees(versions.v1, try #require(try Store(root: store).contentURL(forProductID: id))).status == 0)
        let nodes = Set(pool.archiveRequests(first).map(\.node))
        #expect(nodes == [0, 1], "both nodes served the archive: \(nodes)")
        let installed = pool.archiveRequests(first).reduce(0) { $0 + $1.request.bodyBytesSent }
        #expect(installed == Int(try DeltaVersions.published(fixture).length), "fetched \(installed) bytes")
        Self.expectServedOnce(pool, first, after: [0, 0], "install")

        try fixture.publish([versions.v1, versions.v2], chunked: true)
        try pool.sync()
        let beforeUpdate = pool.marks()
        let update = try await iapcontentOffPool(["download", id, "--catalog", pool.catalogURL, "--store", store.path, "-vv"])
        #expect(update.status == 0, "\(update.output)")
        #expect(update.output.contains("update: fetching only what changed"), "\(update.output)")
        let second = "\(try DeltaVersions.published(fixture).sha256).tar.zst"
        let updated = try #require(try Store(root: store).contentURL(forProductID: id))
        #expect(try diffTrees(versions.v2, updated).status == 0)
        Self.expectServedOnce(pool, second, after: beforeUpdate, "update")

        let big = updated.appendingPathComponent("Contents/big.bin")
        let handle = try FileHandle(forUpdating: big)
        try handle.seek(toOffset: 7 << 20)
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 100))
        try handle.close()
        try FileManager.default.removeItem(at: updated.appendingPathComponent("Contents/levels/1.json"))
        let beforeRepair = pool.marks()
        let repair = try await iapcontentOffPool(["repair", id, "--catalog", pool.catalogURL, "--store", store.path])
        #expect(repair.status == 0, "\(repair.output)")
        #expect(try diffTrees(versions.v2, try #require(try Store(root: store).contentURL(forProductID: id))).status == 0)
        Self.expectServedOnce(pool, second, after: beforeRepair, "repair")
        let verify = try await iapcontentOffPool(["verify", id, "--store", store.path])
        #expect(verify.status == 0, "\(verify.output)")
    }
}
