@testable import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Crypto
import Foundation
import Testing
import TestSupport

/// The attacks of the TUF specification (§1.5.2) against our client, each by a server that lies in one way: every
/// one is refused with its own code, and the store's trusted metadata is byte for byte what it was.
@Suite("TUF client: every attack refused, nothing changed")
struct TUFAttackTests {
    static let maps = TUFClientTests.maps
    static var mapsArchive: String { TUFClientTests.mapsArchive }

    /// A fixture whose client trusts the repository as published with maps 1.0.
    static func trusting() throws -> (TUFClientFixture, RepositoryClient) {
        let fixture = try TUFClientFixture(products: [(maps, "1.0"), (TUFClientTests.music, "1.0")])
        let client = try fixture.client()
        _ = try client.check(productIDs: [maps])
        return (fixture, client)
    }

    /// Runs a check that must be refused with `code`; the trusted metadata must not change.
    static func refused(
        _ fixture: TUFClientFixture, _ client: RepositoryClient, _ code: DownloadError.Code, now: Date = Date(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> DownloadError? {
        let before = try fixture.trustedFiles()
        let error = #expect(throws: DownloadError.self, sourceLocation: sourceLocation) {
            try client.check(productIDs: [maps], now: now)
        }
        #expect(error?.code == code, "\(error.map { "\($0.code.rawValue): \($0.message)" } ?? "accepted")", sourceLocation: sourceLocation)
        #expect(try fixture.trustedFiles() == before, "a refused update changed the trusted metadata", sourceLocation: sourceLocation)
        return error
    }

    /// A timestamp signed by `signer` naming the current snapshot, its tree built over `meta` (default: the
    /// snapshot's), at `version` (default: one above the current).
    static func forgeTimestamp(
        _ fixture: TUFClientFixture, signer: any MetadataSigner, version: Int64? = nil, snapshotVersion: Int64? = nil,
        meta change: (inout [String: MetaFile]) -> Void = { _ in }
    ) throws {
        let state = try RepositoryState(layout: fixture.repository.layout)
        var meta = state.snapshot.signed.meta
        change(&meta)
        let tree = SnapshotTree(meta: meta)
        for (hash, bytes) in tree.nodes { try Data(bytes).write(to: fixture.repository.layout.snapshotTreeNode(hash)) }
        var forged = SignedMetadata(
            TimestampMetadata(
                header: MetadataHeader(version: version ?? state.timestamp.signed.version + 1, expires: Date().addingTimeInterval(86_400)),
                snapshot: snapshotVersion.map { MetaFile(version: $0) } ?? state.timestamp.signed.snapshot, snapshotTree: tree.reference))
        try forged.sign(with: signer)
        try fixture.serve(forged.fileBytes, at: fixture.repository.layout.timestamp)
    }

    // MARK: Rollback

    @Test func anOlderTimestampIsARollback() throws {
        let (fixture, client) = try Self.trusting()
        let old = try Data(contentsOf: fixture.repository.layout.timestamp)
        try fixture.publish([(TUFClientTests.music, "2.0")])
        _ = try client.check(productIDs: [Self.maps])
        try fixture.serve(old, at: fixture.repository.layout.timestamp)
        let error = try Self.refused(fixture, client, .rollback)
        #expect(error?.message.contains("timestamp.json") == true)
    }

    @Test func aTimestampOfALowerVersionNamingTheSameSnapshotIsARollback() throws {
        let (fixture, client) = try Self.trusting()
        try fixture.publish([(TUFClientTests.music, "2.0")])
        let trusted = try client.check(productIDs: [Self.maps]).timestampVersion
        try Self.forgeTimestamp(fixture, signer: fixture.onlineKey, version: trusted - 1)
        let error = try Self.refused(fixture, client, .rollback)
        #expect(error?.message.contains("version \(trusted - 1), older than version \(trusted)") == true)
    }

    @Test func aNewerTimestampNamingAnOlderSnapshotIsARollback() throws {
        let (fixture, client) = try Self.trusting()
        try fixture.publish([(TUFClientTests.music, "2.0")])
        _ = try client.check(productIDs: [Self.maps])
        let snapshot = try RepositoryState(layout: fixture.repository.layout).snapshot.signed.version
        try Self.forgeTimestamp(fixture, signer: fixture.onlineKey, snapshotVersion: snapshot - 1)
        let error = try Self.refused(fixture, client, .rollback)
        #expect(error?.message.contains("snapshot version \(snapshot - 1)") == true)
    }

    @Test func aTreeThatNamesAnOlderBinIsARollback() throws {
        let (fixture, client) = try Self.trusting()
        let bin = try fixture.binName(for: Self.mapsArchive)
        try fixture.publish([(Self.maps, "2.0")])
        _ = try client.check(productIDs: [Self.maps])
        // A newer timestamp, validly signed (the online key), whose tree names the bin's previous version.
        try Self.forgeTimestamp(fixture, signer: fixture.onlineKey) { meta in meta["\(bin).json"]!.version -= 1 }
        let error = try Self.refused(fixture, client, .rollback)
        #expect(error?.message.contains("\(bin).json") == true)
    }

    // MARK: Indefinite freeze

    @Test func anExpiredTimestampIsAFreeze() throws {
        let (fixture, client) = try Self.trusting()
        let error = try Self.refused(fixture, client, .metadataExpired, now: Date().addingTimeInterval(2 * 86_400))
        #expect(error?.message.contains("timestamp") == true)
    }

    @Test func anExpiredRootIsAFreeze() throws {
        let (fixture, client) = try Self.trusting()
        _ = try Self.refused(fixture, client, .metadataExpired, now: Date().addingTimeInterval(400 * 86_400))
    }

    // MARK: Mix-and-match

    @Test func aBinFileHoldingAnotherVersionIsMixAndMatch() throws {
        let (fixture, client) = try Self.trusting()
        let bin = try fixture.binName(for: Self.mapsArchive)
        let old = try fixture.version(of: bin)
        try fixture.publish([(Self.maps, "2.0")])
        let new = try fixture.version(of: bin)
        try Data(contentsOf: fixture.repository.layout.versioned(bin, old)).write(to: fixture.repository.layout.versioned(bin, new))
        _ = try Self.refused(fixture, client, .mixAndMatch)
    }

    // MARK: Arbitrary installation and key compromise (threshold)

    @Test func aBinChangedAfterSigningMeetsNoThreshold() throws {
        let (fixture, client) = try Self.trusting()
        try fixture.publish([(Self.maps, "2.0")])
        let bin = try fixture.binName(for: Self.mapsArchive)
        let url = fixture.repository.layout.versioned(bin, try fixture.version(of: bin))
        let text = try String(contentsOf: url, encoding: .utf8)
        try text.replacingOccurrences(of: "\"2.0\"", with: "\"9.0\"").write(to: url, atomically: true, encoding: .utf8)
        _ = try Self.refused(fixture, client, .thresholdNotMet)
    }

    @Test func aNewRootSignedByOneOfTwoNeededRootKeysMeetsNoThreshold() throws {
        let (fixture, client) = try Self.trusting()
        // Whoever stole one of the three root keys writes root 2 that trusts only their key.
        let thief = fixture.rootKeys[0]
        var root = try RepositoryState(layout: fixture.repository.layout).root.signed
        root.header = MetadataHeader(version: 2, expires: Date().addingTimeInterval(86_400))
        root.roles["root"] = RoleKeys(keyIDs: [thief.key.keyID], threshold: 1)
        var document = SignedMetadata(root)
        try document.sign(with: thief)
        try document.fileBytes.write(to: fixture.repository.layout.versioned("root", 2))
        _ = try Self.refused(fixture, client, .thresholdNotMet)
    }

    @Test func aTimestampByAnUnknownKeyMeetsNoThreshold() throws {
        let (fixture, client) = try Self.trusting()
        try Self.forgeTimestamp(fixture, signer: KeyFileSigner(SigningKey.generate()))
        _ = try Self.refused(fixture, client, .thresholdNotMet)
    }

    // MARK: Fast-forward

    @Test func aRootFileThatSkipsAVersionIsAFastForward() throws {
        let (fixture, client) = try Self.trusting()
        var root = try RepositoryState(layout: fixture.repository.layout).root.signed
        root.header = MetadataHeader(version: 3, expires: Date().addingTimeInterval(86_400))
        var document = SignedMetadata(root)
        for key in fixture.rootKeys { try document.sign(with: key) }
        try document.fileBytes.write(to: fixture.repository.layout.versioned("root", 2))
        _ = try Self.refused(fixture, client, .fastForward)
    }

    // MARK: Endless data

    @Test func aTimestampOfTwentyKilobytesIsTooLarge() throws {
        let (fixture, client) = try Self.trusting()
        try fixture.serve(Data(repeating: 0x20, count: 20 << 10), at: fixture.repository.layout.timestamp)
        _ = try Self.refused(fixture, client, .metadataTooLarge)
    }

    @Test func aSnapshotTreeNodeLargerThanItsFanoutAllowsIsTooLarge() throws {
        let (fixture, client) = try Self.trusting()
        try fixture.publish([(Self.maps, "2.0")])
        let tree = try #require(try RepositoryState(layout: fixture.repository.layout).timestamp.signed.snapshotTree)
        try Data(repeating: 0x20, count: 4 << 20).write(to: fixture.repository.layout.snapshotTreeNode(tree.root))
        _ = try Self.refused(fixture, client, .metadataTooLarge)
    }

    // MARK: Malformed

    @Test func aTreeNodeThatDoesNotHashToItsNameIsRefused() throws {
        let (fixture, client) = try Self.trusting()
        try fixture.publish([(Self.maps, "2.0")])
        let tree = try #require(try RepositoryState(layout: fixture.repository.layout).timestamp.signed.snapshotTree)
        try Data(#"{"children":[]}"#.utf8).write(to: fixture.repository.layout.snapshotTreeNode(tree.root))
        _ = try Self.refused(fixture, client, .badMetadata)
    }

    // MARK: The leak drill

    /// The online key leaks. Its holder pushes a timestamp a billion versions ahead to the client (accepted: the key
    /// is still trusted). The root holders add a new online key and revoke the leaked one; the client, which never
    /// updated the app, follows the root chain, drops the pushed timestamp (its keys changed) and takes the real
    /// one, then refuses what the leaked key signs.
    @Test func afterRevocationTheClientRecoversFromAFastForwardAndRefusesTheLeakedKey() throws {
        let (fixture, client) = try Self.trusting()
        let leaked = fixture.onlineKey
        // The holder of the leaked key serves the client (a mirror, a network in between), not the publisher's folder.
        let real = try Data(contentsOf: fixture.repository.layout.timestamp)
        try Self.forgeTimestamp(fixture, signer: leaked, version: 1_000_000_000)
        #expect(try client.check(productIDs: [Self.maps]).timestampVersion == 1_000_000_000)
        try fixture.serve(real, at: fixture.repository.layout.timestamp)

        let replacement = KeyFileSigner(SigningKey.generate())
        let both: [any MetadataSigner] = [leaked, replacement]
        for role in TUFRepository.onlineRoles {
            try fixture.repository.changeKeys(role: role, add: [replacement.key], revoke: [leaked.key.keyID], rootSigners: fixture.rootKeys, onlineSigners: both)
        }
        let recovered = try client.check(productIDs: [Self.maps])
        #expect(recovered.rootVersion == 4)
        #expect(recovered.timestampVersion < 1_000_000_000)

        try Self.forgeTimestamp(fixture, signer: leaked, version: recovered.timestampVersion + 1)
        _ = try Self.refused(fixture, client, .thresholdNotMet)
    }
}
