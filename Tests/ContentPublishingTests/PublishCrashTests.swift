import ContentDelivery
import ContentDownloads
import Foundation
import Testing
import TestSupport

/// A publisher killed (SIGKILL) after each of its requests in turn: at every prefix a client reading the bucket
/// gets the old catalog or the new one, verified, with every archive and manifest it names present; a rerun
/// then finishes the publish.
@Suite("Publish: killed after every request", .serialized, .needsSeaweedFS)
struct PublishCrashTests {
    @Test func everyPrefixServesAConsistentCatalog() throws {
        let fixture = try PublishFixture()
        let v1 = try fixture.site("v1", catalogVersion: 1, products: [
            .init(id: "com.example.a", size: 50_000, seed: 1), .init(id: "com.example.b", size: 20_000, seed: 2),
        ])
        let v2 = try fixture.site("v2", catalogVersion: 2, products: [
            .init(id: "com.example.a", version: "2.0", size: 50_000, seed: 3), .init(id: "com.example.b", size: 20_000, seed: 2),
            .init(id: "com.example.c", size: 7 << 20, seed: 4),
        ])
        var stop = 1
        var completed = false
        while !completed, stop < 200 {
            let prefix = "kill-\(stop)"
            let first = try fixture.publish(v1, prefix: prefix)
            try #require(first.status == 0, "\(first.stderr)")
            let killed = try fixture.publish(
                v2, prefix: prefix, arguments: ["--part-size", "5"], environment: ["IAPCONTENT_PUBLISH_STOP_AFTER": String(stop)])
            if killed.status == 0 {
                completed = true
            } else {
                #expect(killed.status == 128 + 9, "stopped after \(stop) requests: \(killed.stderr)")
            }
            let seen = try fixture.reader(prefix)
            #expect([1, 2].contains(seen.catalogVersion), "after \(stop) requests")
            if !completed {
                let rerun = try fixture.publish(v2, prefix: prefix, arguments: ["--part-size", "5"])
                #expect(rerun.status == 0, "rerun after \(stop) requests: \(rerun.stderr)")
                #expect(try fixture.reader(prefix).catalogVersion == 2)
            }
            #expect(try fixture.legacySignatureMatches(prefix), "after \(stop) requests and a rerun")
            stop += 1
        }
        #expect(completed)
        #expect(stop > 10)  // it did stop at each of the publish's requests
    }
}
