@testable import ContentDelivery
import Foundation
import Testing

/// Every parser against a hostile corpus: each document is refused with an error naming the role and the field
/// or key, never accepted and never a crash.
@Suite("Repository: hostile metadata")
struct MetadataParsingTests {
    static let key = KeyFileSigner(SigningKey.generate())
    static let other = KeyFileSigner(SigningKey.generate())
    static let expires = Date(timeIntervalSince1970: 1_900_000_000)

    static func root(threshold: Int = 1) -> SignedMetadata<RootMetadata> {
        let keyID = key.key.keyID
        var document = SignedMetadata(
            RootMetadata(
                header: MetadataHeader(version: 1, expires: expires), keys: [keyID: key.key],
                roles: Dictionary(uniqueKeysWithValues: RootMetadata.roleNames.map { ($0, RoleKeys(keyIDs: [keyID], threshold: threshold)) })))
        try! document.sign(with: key)
        return document
    }

    /// The signed root's document with `edit` applied to its JSON.
    static func edited(_ edit: (inout [String: JSONValue]) -> Void) -> [UInt8] {
        guard case .object(var document) = try! JSONParser.parse(Array(root().fileBytes)) else { fatalError() }
        guard case .object(var signed) = document["signed"] else { fatalError() }
        edit(&signed)
        document["signed"] = .object(signed)
        return JSONValue.object(document).canonicalBytes
    }

    static func refusal(_ bytes: [UInt8]) -> MetadataError? {
        do {
            _ = try SignedMetadata<RootMetadata>(parsing: bytes, roleName: "root")
            return nil
        } catch { return error }
    }

    @Test func aGoodRootParsesAndVerifies() throws {
        let parsed = try SignedMetadata<RootMetadata>(parsing: Array(Self.root().fileBytes), roleName: "root")
        try parsed.verifySelf()
        #expect(parsed.signed == Self.root().signed)
    }

    struct FieldCase: Sendable, CustomTestStringConvertible {
        var name: String
        var edit: @Sendable (inout [String: JSONValue]) -> Void
        var expected: String
        init(_ name: String, _ edit: @escaping @Sendable (inout [String: JSONValue]) -> Void, _ expected: String) {
            self.name = name
            self.edit = edit
            self.expected = expected
        }
        var testDescription: String { name }
    }

    static let fieldCases: [FieldCase] = [
        FieldCase("wrong type of version", { s in s["version"] = "1" }, "signed.version must be an integer"),
        FieldCase("huge version", { s in s["version"] = .integer(Int64.max) }, "signed.version is 9223372036854775807, more than"),
        FieldCase("version 0", { s in s["version"] = 0 }, "signed.version is 0, must be at least 1"),
        FieldCase("wrong _type", { s in s["_type"] = "targets" }, "signed._type is \"targets\""),
        FieldCase("spec 2", { s in s["spec_version"] = "2.0.0" }, "signed.spec_version"),
        FieldCase("expires with offset", { s in s["expires"] = "2030-01-01T00:00:00+01:00" }, "signed.expires"),
        FieldCase("missing keys", { s in s["keys"] = nil }, "signed.keys is missing"),
        FieldCase("roles not object", { s in s["roles"] = [1] }, "signed.roles must be an object"),
        FieldCase("threshold 0", { s in
            s["roles"] = Self.roles(threshold: 0)
        }, "signed.roles.root.threshold is 0, must be at least 1"),
        FieldCase("threshold above keys", { s in
            s["roles"] = Self.roles(threshold: 2)
        }, "threshold 2 but only 1 key"),
        FieldCase("duplicate keyid in role", { s in
            s["roles"] = Self.roles(keyIDs: [Self.key.key.keyID, Self.key.key.keyID])
        }, "lists \(Self.key.key.keyID) twice"),
        FieldCase("role names unknown key", { s in
            s["roles"] = Self.roles(keyIDs: [Self.other.key.keyID])
        }, "which signed.keys does not hold"),
        FieldCase("unknown keytype", { s in
            s["keys"] = [Self.key.key.keyID: ["keytype": "rsa", "scheme": "rsassa-pss-sha256", "keyval": ["public": "00"]]]
        }, "is rsa/rsassa-pss-sha256"),
        FieldCase("bad hex public key", { s in
            s["keys"] = [Self.key.key.keyID: ["keytype": "ed25519", "scheme": "ed25519", "keyval": ["public": .string(String(repeating: "g", count: 64))]]]
        }, "keyval.public must be lowercase hex of 64 digits"),
        FieldCase("keyid not the key's hash", { s in
            s["keys"] = [Self.key.key.keyID: Self.other.key.json]
        }, "but the key's ID"),
        FieldCase("consistent_snapshot not bool", { s in s["consistent_snapshot"] = 1 }, "consistent_snapshot must be true or false"),
    ]

    @Test(arguments: fieldCases)
    func refusesAField(_ field: FieldCase) {
        let error = Self.refusal(Self.edited(field.edit))
        #expect(error != nil, "\(field.name) was accepted")
        #expect(error.map { "\($0)" }?.contains(field.expected) == true, "\(field.name): \(String(describing: error))")
        #expect(error.map { "\($0)" }?.hasPrefix("root metadata") == true)
    }

    static func roles(threshold: Int = 1, keyIDs: [String]? = nil) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: RootMetadata.roleNames.map {
            ($0, RoleKeys(keyIDs: keyIDs ?? [key.key.keyID], threshold: threshold).json)
        }))
    }

    @Test(arguments: [
        ("truncated", String(decoding: Array(root().fileBytes.prefix(100)), as: UTF8.self), "truncated"),
        ("huge version", #"{"signed":{"version":99999999999999999999999}}"#, "integer too large"),
        ("fraction", #"{"signed":{"version":1.5}}"#, "only integers"),
        ("duplicate key", #"{"signed":{},"signed":{}}"#, "appears twice"),
        ("not JSON", "garbage", "unexpected character"),
        ("no signed", #"{"signatures":[]}"#, "signed is missing"),
        ("deep", String(repeating: "[", count: 100) + String(repeating: "]", count: 100), "nested deeper"),
    ])
    func refusesADocument(_ name: String, _ text: String, _ expected: String) {
        let error = Self.refusal(Array(text.utf8))
        #expect(error.map { "\($0)" }?.contains(expected) == true, "\(name): \(String(describing: error))")
    }

    @Test func aSignatureByTheSameKeyTwiceCountsOnce() throws {
        let keys = [Self.key, Self.other]
        var document = SignedMetadata(
            RootMetadata(
                header: MetadataHeader(version: 1, expires: Self.expires),
                keys: Dictionary(uniqueKeysWithValues: keys.map { ($0.key.keyID, $0.key) }),
                roles: Dictionary(uniqueKeysWithValues: RootMetadata.roleNames.map {
                    ($0, RoleKeys(keyIDs: keys.map(\.key.keyID), threshold: 2))
                })))
        try document.sign(with: Self.key)
        document.signatures.append(document.signatures[0])
        let parsed = try SignedMetadata<RootMetadata>(parsing: Array(document.fileBytes), roleName: "root")
        #expect(throws: MetadataError.thresholdNotMet(role: "root", valid: 1, threshold: 2)) { try parsed.verifySelf() }
        try document.sign(with: Self.other)
        try SignedMetadata<RootMetadata>(parsing: Array(document.fileBytes), roleName: "root").verifySelf()
    }

    @Test func aTamperedOrForeignSignatureCountsNone() throws {
        var tampered = Self.edited { $0["version"] = 2 }
        #expect(throws: MetadataError.thresholdNotMet(role: "root", valid: 0, threshold: 1)) {
            try SignedMetadata<RootMetadata>(parsing: tampered, roleName: "root").verifySelf()
        }
        tampered = Array(Self.root().fileBytes)
        var foreign = Self.root()
        foreign.signatures = []
        try foreign.sign(with: Self.other)
        #expect(throws: MetadataError.thresholdNotMet(role: "root", valid: 0, threshold: 1)) {
            try SignedMetadata<RootMetadata>(parsing: Array(foreign.fileBytes), roleName: "root").verifySelf()
        }
    }

    @Test func badSignatureHexNamesTheKey() {
        let bytes = Array(#"{"signed":\#(String(decoding: Self.root().signedJSON.canonicalBytes, as: UTF8.self)),"signatures":[{"keyid":"abc","sig":"zz"}]}"#.utf8)
        #expect(Self.refusal(bytes).map { "\($0)" }?.contains("signatures[0].sig of key abc is not hex") == true)
    }

    @Test func expiryAndOtherRoles() throws {
        let header = Self.root().signed.header
        #expect(throws: MetadataError.expired(role: "root", expires: "2030-03-17T17:46:40Z")) {
            try header.checkNotExpired(role: "root", now: Self.expires)
        }
        try header.checkNotExpired(role: "root", now: Self.expires.addingTimeInterval(-1))
        // A timestamp naming two files, a snapshot without targets.json, a bin of 33 bits.
        let timestamp = TimestampMetadata(header: header, snapshot: MetaFile(version: 1))
        guard case .object(var signed) = timestamp.signedJSON else { return }
        signed["meta"] = ["snapshot.json": ["version": 1], "other.json": ["version": 1]]
        #expect(throws: MetadataError.invalidField(role: "timestamp", field: "signed.meta", problem: "must name exactly one file, snapshot.json; it names 2")) {
            try SignedMetadata<TimestampMetadata>(parsing: JSONValue.object(["signed": .object(signed), "signatures": []]).canonicalBytes, roleName: "timestamp")
        }
        let snapshot: JSONValue = ["signed": SnapshotMetadata(header: header, meta: ["bins-0.json": MetaFile(version: 1)]).signedJSON, "signatures": []]
        #expect(throws: MetadataError.invalidField(role: "snapshot", field: "signed.meta.targets.json", problem: "is missing")) {
            try SignedMetadata<SnapshotMetadata>(parsing: snapshot.canonicalBytes, roleName: "snapshot")
        }
        let bins = SuccinctRoles(keys: RoleKeys(keyIDs: [Self.key.key.keyID], threshold: 1), bitLength: 33, namePrefix: "bins")
        let targets = TargetsMetadata(header: header, delegations: Delegations(keys: [Self.key.key.keyID: Self.key.key], succinctRoles: bins))
        #expect(throws: MetadataError.invalidField(role: "targets", field: "signed.delegations.succinct_roles.bit_length", problem: "is 33, must be at most 32")) {
            try SignedMetadata<TargetsMetadata>(parsing: JSONValue.object(["signed": targets.signedJSON, "signatures": []]).canonicalBytes, roleName: "targets")
        }
        let target: JSONValue = ["signed": TargetsMetadata(header: header, targets: ["a": TargetFile(length: 1, sha256: "xyz")]).signedJSON, "signatures": []]
        #expect(throws: MetadataError.invalidField(role: "bins-3", field: "signed.targets.a.hashes.sha256", problem: "must be lowercase hex of 64 digits")) {
            try SignedMetadata<TargetsMetadata>(parsing: target.canonicalBytes, roleName: "bins-3")
        }
    }

    @Test func refusesABadSnapshotTreeReference() {
        let hash = JSONValue.string(String(repeating: "a", count: 64))
        let cases: [(JSONValue, String)] = [
            (["root": "zz", "fanout": 2, "leaves": 1], "signed.snapshot_tree.root must be lowercase hex of 64 digits"),
            (["root": hash, "fanout": 1, "leaves": 1], "signed.snapshot_tree.fanout is 1, must be at least 2"),
            (["root": hash, "fanout": 70_000, "leaves": 1], "signed.snapshot_tree.fanout is 70000, more than 65536"),
            (["root": hash, "fanout": 2], "signed.snapshot_tree.leaves is missing"),
        ]
        for (reference, expected) in cases {
            let timestamp = TimestampMetadata(header: MetadataHeader(version: 1, expires: Self.expires), snapshot: MetaFile(version: 1))
            guard case .object(var signed) = timestamp.signedJSON else { return }
            signed["snapshot_tree"] = reference
            let bytes = JSONValue.object(["signed": .object(signed), "signatures": []]).canonicalBytes
            do {
                _ = try SignedMetadata<TimestampMetadata>(parsing: bytes, roleName: "timestamp")
                Issue.record("accepted \(reference)")
            } catch {
                #expect("\(error)" == "timestamp metadata: \(expected)")
            }
        }
    }
}
