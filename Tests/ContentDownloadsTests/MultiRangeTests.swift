import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// An update whose changed chunks lie scattered first asks nginx with a `HEAD` whether it answers several ranges;
/// then it asks for several in one request where it does (`multipart/byteranges`), and for one range per request
/// where it does not (`max_ranges 1`: a 200) — the update installs exactly either way, and no byte comes twice.
@Suite(.serialized) struct MultiRangeTests {
    static let productID = "com.example.scattered"

    /// Installs 1.0 (a 20 MiB file and a level), publishes 2.0 (10 KB changed at `places` places spread evenly,
    /// five by default, 4 MiB apart; the level changed), updates over one connection (or with `connections`) with
    /// `-vv`; the update's output, the archive requests nginx logged for 2.0, and whether 2.0 is installed exactly.
    static func update(
        locationConfig: String, httpConfig: String = "", places: Int = 5,
        connections: [String] = ["--connections", "1", "--max-connections", "1"]
    ) async throws
        -> (output: String, requests: [Nginx.LoggedRequest], exact: Bool)
    {
        let fixture = try QueueFixture(locationConfig: locationConfig, httpConfig: httpConfig)
        let big = PackageFixture.bytes(count: 20 << 20, seed: 21)
        var changed = big
        for place in 0..<places {
            let at = places == 5 ? (place * 4 + 2) << 20 : (2 * place + 1) * (20 << 20) / (2 * places)
            changed.replaceSubrange(at..<(at + 10_000), with: PackageFixture.bytes(count: 10_000, seed: UInt64(30 + place)))
        }
        let v1 = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/1.0"), productID: productID, version: "1.0",
            files: ["Contents/big.bin": big, "Contents/levels/1.json": Data("{\"speed\": 1}".utf8)])
        let v2 = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/2.0"), productID: productID, version: "2.0",
            files: ["Contents/big.bin": changed, "Contents/levels/1.json": Data("{\"speed\": 2}".utf8)])
        try fixture.publish([v1], chunked: true)
        let store = fixture.root.appendingPathComponent("cli-store")
        let first = try await iapcontentOffPool(["download", productID, "--catalog", fixture.catalogURL, "--store", store.path])
        #expect(first.status == 0, "\(first.output)")
        try fixture.publish([v1, v2], chunked: true)
        let archive = "\(try #require(try fixture.catalog().catalog.product(productID)).sha256).tar.zst"
        let update = try await iapcontentOffPool([
            "download", productID, "--catalog", fixture.catalogURL, "--store", store.path, "-vv",
        ] + connections)
        #expect(update.status == 0, "\(update.output)")
        let installed = try #require(try Store(root: store).contentURL(forProductID: productID))
        return (update.output, fixture.nginx.requests().filter { $0.request.contains(archive) }, try diffTrees(v2, installed).status == 0)
    }

    /// The archive bytes the update's plan fetches ("fetch=N chunks (X of Y bytes)").
    static func planned(_ output: String) throws -> Int {
        let match = try #require(output.firstMatch(of: /fetch=\d+ chunks \((\d+) of/))
        return try #require(Int(match.1))
    }

    @Test func severalRangesInOneRequestWhereTheServerAnswersThem() async throws {
        let all = try await Self.update(locationConfig: "")
        #expect(all.exact)
        let planned = try Self.planned(all.output)
        #expect(all.requests.filter { $0.request.hasPrefix("HEAD") }.count == 1, "one probe: \(all.requests.map(\.request))")
        let run = (output: all.output, requests: all.requests.filter { $0.request.hasPrefix("GET") })
        #expect(run.requests.allSatisfy { $0.status == 206 }, "\(run.requests.map(\.status))")
        #expect(run.requests.contains { $0.range.contains(",") }, "no request asked for several ranges: \(run.requests.map(\.range))")
        // Fewer requests than ranges; the bytes are the chunks, the small gaps read through and the part headers.
        let ranges = run.requests.reduce(0) { $0 + $1.range.split(separator: ",").count }
        #expect(run.requests.count < ranges, "\(run.requests.count) requests for \(ranges) ranges")
        let body = run.requests.reduce(0) { $0 + $1.bodyBytesSent }
        #expect(body >= planned && body <= planned + ranges * (128 << 10) + ranges * 200, "\(body) bytes for \(planned) planned")
    }

    @Test func oneRangePerRequestWhereTheServerAnswersSeveralWithTheWholeArchive() async throws {
        let run = try await Self.update(locationConfig: "max_ranges 1;")
        #expect(run.exact)
        let planned = try Self.planned(run.output)
        // The probe (a HEAD for two ranges) is answered 200 with no body; every GET asks for one range.
        let probes = run.requests.filter { $0.request.hasPrefix("HEAD") }
        #expect(probes.count == 1 && probes.first?.status == 200 && probes.first?.bodyBytesSent == 0, "\(probes)")
        let gets = run.requests.filter { $0.request.hasPrefix("GET") }
        #expect(gets.allSatisfy { $0.status == 206 && !$0.range.contains(",") }, "\(gets.map { "\($0.status) \($0.range)" })")
        // Nothing fetched twice: the replies hold each planned chunk once (and the small gaps read through).
        let body = gets.reduce(0) { $0 + $1.bodyBytesSent }
        #expect(body >= planned && body <= planned + gets.count * (128 << 10), "\(body) bytes for \(planned) planned")
        #expect(run.output.contains("does not answer requests for several ranges"), "\(run.output)")
    }

    @Test func aFarServerWithoutMultiRangeHasItsGapsReadThroughOnlyUpToTheCap() async throws {
        // nginx answers one range per request and lets each request wait for a fifth of a second (`limit_req` at
        // 5 a second): a far server's round trip. The changed chunks lie about 3 MiB apart; on loopback that takes
        // milliseconds to read, so a gap is worth a round trip (GapBudget) — but the gaps a plan reads add up to at
        // most 15 % of it (GapBudget.planShare): uncapped they would double the bytes of this update.
        let run = try await Self.update(
            locationConfig: "max_ranges 1; limit_req zone=far burst=100;",
            httpConfig: "limit_req_zone $binary_remote_addr zone=far:1m rate=5r/s;")
        #expect(run.exact)
        let planned = try Self.planned(run.output)
        let gets = run.requests.filter { $0.request.hasPrefix("GET") }
        #expect(gets.allSatisfy { $0.status == 206 && !$0.range.contains(",") }, "\(gets.map { "\($0.status) \($0.range)" })")
        let body = gets.reduce(0) { $0 + $1.bodyBytesSent }
        #expect(Double(body) <= Double(planned) * 1.2, "\(body) bytes for \(planned) planned: \(gets.map(\.range))")
        // Nothing asked for twice.
        let ranges = gets.compactMap { request -> Range<Int>? in
            let bounds = request.range.dropFirst(6).split(separator: "-")
            guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]) else { return nil }
            return first..<(last + 1)
        }.sorted { $0.lowerBound < $1.lowerBound }
        #expect(ranges.count == gets.count)
        for (earlier, later) in zip(ranges, ranges.dropFirst()) { #expect(earlier.upperBound <= later.lowerBound) }
    }

    @Test func scatteredRunsFromAServerWithoutMultiRangeGoOutOverManyConnectionsAtOnce() async throws {
        // Twelve changed places: each run is one range and one round trip, so the runs are spread over more
        // connections than the four a download starts with (up to --max-connections, 16) at once, not queued
        // behind each other on four until the tuner's first step a second later.
        let run = try await Self.update(locationConfig: "max_ranges 1;", places: 12, connections: [])
        #expect(run.exact)
        let widest = run.output.matches(of: /connections=(\d+)\/\d+/).compactMap { Int($0.1) }.max() ?? 0
        #expect(widest > 4, "at most \(widest) connections at once: \(run.output.split(separator: "\n").filter { $0.contains("connections=") })")
        let planned = try Self.planned(run.output)
        let body = run.requests.filter { $0.request.hasPrefix("GET") }.reduce(0) { $0 + $1.bodyBytesSent }
        #expect(Double(body) <= Double(planned) * 1.2, "\(body) bytes for \(planned) planned")
    }

    @Test func aServerThatRefusesTheProbeIsNotBlamed() async throws {
        // URLs signed for GET only answer a HEAD 403: the update goes on with one range per request.
        let run = try await Self.update(locationConfig: "if ($request_method = HEAD) { return 403; }")
        #expect(run.exact)
        #expect(run.requests.filter { $0.request.hasPrefix("HEAD") }.allSatisfy { $0.status == 403 })
        let gets = run.requests.filter { $0.request.hasPrefix("GET") }
        #expect(!gets.isEmpty && gets.allSatisfy { $0.status == 206 && !$0.range.contains(",") }, "\(gets.map { "\($0.status) \($0.range)" })")
    }
}
