import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// Damaged archives (bytes flipped anywhere, headers included) never crash the installer, never
/// write outside the store and never leave v1 half-replaced: either a typed error, or a whole install.
@Suite("Install: corrupted archives")
struct InstallCorruptionTests {
    @Test("byte flips in a plain tar: typed error or whole install, v1 or v2 intact, nothing outside")
    func byteFlips() throws {
        let fixture = try InstallFixture()
        try fixture.installGood(version: "1")
        var builder = InstallFixture.package(version: "2")
        builder.zstd = false
        let source = fixture.archives.appendingPathComponent("v2.tar")
        try builder.write(to: source)
        let original = try Data(contentsOf: source)
        let sentinel = try Snapshot.take(fixture.sentinel)
        var generator = SplitMix(seed: 0x1A9C)
        var outcomes: [String: Int] = [:]
        for round in 0..<60 {
            var bytes = original
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                // Mostly the header blocks, where the interesting fields are.
                let limit = generator.next() % 3 == 0 ? bytes.count : min(bytes.count, 4 * 512)
                let offset = Int(generator.next() % UInt64(limit))
                bytes[offset] = UInt8(truncatingIfNeeded: generator.next())
            }
            let url = fixture.archives.appendingPathComponent("flip-\(round).tar")
            try bytes.write(to: url)
            let product = try InstallFixture.catalogProduct(
                for: url, productID: InstallFixture.productID, version: "2",
                uncompressedSize: builder.declaredUncompressedSize, entryCount: builder.entries.count)
            do {
                try ContentInstaller.install(archive: url, product: product, store: fixture.store, options: InstallFixture.options)
                outcomes["installed", default: 0] += 1
                #expect(fixture.store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("2"))
                // Reset to v1 for the next round.
                try fixture.installGood(version: "1")
            } catch let error as InstallError {
                outcomes[String(describing: error).prefix(12).description, default: 0] += 1
                #expect(fixture.store.installedVersion(forProductID: InstallFixture.productID) == ContentVersion("1"))
            }
            #expect(fixture.stagingNames().isEmpty)
            #expect(try Snapshot.take(fixture.sentinel) == sentinel)
        }
        #expect(outcomes.values.reduce(0, +) == 60)
    }
}

/// A tiny deterministic generator (SplitMix64) so failures reproduce.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
