import ContentDelivery
import ContentPublishing
import Foundation
import Testing
import TestSupport

/// Two publishers lined up just before their catalog switch, both having read the same live catalog: exactly one
/// switches it, the other exits 1 saying so, and readers see the winner's catalog with its signature.
/// Against SeaweedFS three rounds, against moto one (its If-Match compare-and-swap, measured).
@Suite("Publish: two publishers at once", .serialized)
struct PublishRaceTests {
    @Test(arguments: PublishBackend.available)
    func exactlyOneOfTwoWins(_ backend: PublishBackend) throws {
        let fixture = try PublishFixture(backend)
        let base = try fixture.site("base", catalogVersion: 1, products: [.init(id: "com.example.a", size: 20_000, seed: 1)])
        let a = try fixture.site("a", catalogVersion: 10, products: [.init(id: "com.example.a", version: "2.0", size: 20_000, seed: 2)])
        let b = try fixture.site("b", catalogVersion: 11, products: [.init(id: "com.example.a", version: "3.0", size: 20_000, seed: 3)])
        for round in 0..<(backend == .seaweedFS ? 3 : 1) {
            let prefix = "race-\(round)"
            #expect(try fixture.publish(base, prefix: prefix).status == 0)
            let barrier = fixture.root.url.appendingPathComponent("barrier-\(round)")
            try FileManager.default.createDirectory(at: barrier, withIntermediateDirectories: true)
            let environment = ["IAPCONTENT_PUBLISH_BARRIER": barrier.path]
            let logA = fixture.root.url.appendingPathComponent("a-\(round)")
            let logB = fixture.root.url.appendingPathComponent("b-\(round)")
            let first = try fixture.startPublish(a, prefix: prefix, log: logA, environment: environment)
            let second = try fixture.startPublish(b, prefix: prefix, log: logB, environment: environment)
            let deadline = Date().addingTimeInterval(60)
            while (try FileManager.default.contentsOfDirectory(atPath: barrier.path)).count < 2, Date() < deadline {
                usleep(20_000)
            }
            _ = FileManager.default.createFile(atPath: barrier.appendingPathComponent("go").path, contents: nil)
            first.waitUntilExit()
            second.waitUntilExit()
            let statuses = [first.terminationStatus, second.terminationStatus]
            #expect(statuses.sorted() == [0, 1], "round \(round): \(statuses)")
            let loserLog = first.terminationStatus == 0 ? logB : logA
            let loserErr = (try? String(contentsOfFile: loserLog.path + ".err", encoding: .utf8)) ?? ""
            #expect(loserErr.contains("another publisher replaced it first"), "\(loserErr)")
            let winner: UInt64 = first.terminationStatus == 0 ? 10 : 11
            #expect(try fixture.reader(prefix).catalogVersion == winner)
            #expect(try fixture.legacySignatureMatches(prefix))
        }
    }
}
