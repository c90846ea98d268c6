@testable import ContentDelivery
import Foundation
import PropertyBased
import Testing
import TestSupport

/// OLPC canonical JSON: fixed documents byte for byte, what securesystemslib writes for the same documents, and
/// the properties every encoding has (parsing it gives the value back; encoding is a fixed point).
@Suite("Repository: canonical JSON")
struct CanonicalJSONTests {
    static let fixed: [(JSONValue, String)] = [
        (["b": 1, "a": [true, false, .null], "": "x"], #"{"":"x","a":[true,false,null],"b":1}"#),
        (["quote": "a\"b\\c", "ctl": "tab\tnl\n"], "{\"ctl\":\"tab\tnl\n\",\"quote\":\"a\\\"b\\\\c\"}"),
        (["é": 1, "z": 2, "Z": 3, "ä": ["nested": [:]]], #"{"Z":3,"z":2,"ä":{"nested":{}},"é":1}"#),
        (.integer(-9_223_372_036_854_775_808), "-9223372036854775808"),
        (.array([]), "[]"),
    ]

    @Test func fixedDocumentsEncodeToTheirBytes() {
        for (value, expected) in Self.fixed {
            #expect(String(decoding: value.canonicalBytes, as: UTF8.self) == expected)
        }
    }

    /// The same bytes as securesystemslib's `encode_canonical`, which python-tuf signs with.
    @Test(.needsPythonTUF) func matchesSecuresystemslibByteForByte() throws {
        let documents: [JSONValue] = Self.fixed.map(\.0) + [
            Self.sampleRoot(),
            ["emoji": "🙂 \u{7f} \u{1}", "path": "a/b c.tar.zst", "k": ["y": 1, "x": [1, "2", ["3": .null]]]],
        ]
        for document in documents {
            // The document goes to Python as ordinary JSON (escaped), comes back canonical, hex-encoded.
            let input = try JSONSerialization.data(withJSONObject: Self.foundation(document), options: [.fragmentsAllowed])
            let result = try PythonTUF.run(
                """
                import sys, json
                from securesystemslib.formats import encode_canonical
                sys.stdout.write(encode_canonical(json.loads(sys.argv[1])).encode('utf-8').hex())
                """, [String(decoding: input, as: UTF8.self)])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == Hex.string(document.canonicalBytes), "\(document)")
        }
    }

    @Test func parsingTheEncodingGivesTheValueBack() async {
        await propertyCheck(input: Self.values) { value in
            let parsed = try? JSONParser.parse(value.fileBytes)
            #expect(parsed == value)
            #expect(parsed?.canonicalBytes == value.canonicalBytes)
            #expect(value.fileBytes.allSatisfy { $0 >= 0x20 })
        }
    }

    @Test func aFileEscapesControlCharactersOnly() {
        let value: JSONValue = ["a\t": "\u{1}é"]
        #expect(String(decoding: value.fileBytes, as: UTF8.self) == #"{"a\u0009":"\u0001é"}"#)
    }

    @Test func keysComeOutSortedByCodePoint() async {
        await propertyCheck(input: Self.key.array(of: 0...8)) { keys in
            let object = JSONValue.object(Dictionary(keys.map { ($0, JSONValue.null) }, uniquingKeysWith: { a, _ in a }))
            let parsedBack = String(decoding: object.canonicalBytes, as: UTF8.self)
            let sorted = Set(keys).sorted { Array($0.unicodeScalars.map(\.value)).lexicographicallyPrecedes($1.unicodeScalars.map(\.value)) }
            var expected = "{"
            for (index, key) in sorted.enumerated() {
                expected += (index > 0 ? "," : "") + "\"" + key.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "\"", with: "\\\"") + "\":null"
            }
            #expect(parsedBack == expected + "}")
        }
    }

    /// A signed document's file is the canonical JSON of `{"signatures", "signed"}` with control characters
    /// escaped, whether its signed part is reused from signing (no control character in it) or encoded again.
    @Test func aSignedFileIsItsDocumentsEncoding() async throws {
        let signer = KeyFileSigner(SigningKey.generate())
        let header = MetadataHeader(version: 4, expires: Date(timeIntervalSince1970: 1_900_000_000))
        await propertyCheck(input: Self.values) { value in
            var document = SignedMetadata(TargetsMetadata(
                header: header, targets: ["p/p.tar.zst": TargetFile(length: 12, sha256: String(repeating: "a", count: 64), custom: value)]))
            try? document.sign(with: signer)
            let whole: JSONValue = ["signed": document.signedJSON, "signatures": .array(document.signatures.map(\.json))]
            #expect(document.fileBytes == Data(whole.fileBytes))
            #expect(document.signatures.count == 1)
        }
    }

    // MARK: Generators and helpers

    static let pieces = Array("aZ\"\\é🙂\t b0".map { String($0) })
    static let key = Gen.element(of: pieces).array(of: 0...4).map { $0.compactMap { $0 }.joined() }
    /// Random values, built from a random list of numbers (each number picks the next choice).
    static let values = Gen.int64(in: Int64.min...Int64.max).array(of: 0...80).map { numbers in
        var source = ValueSource(numbers: numbers)
        return source.value(depth: 0)
    }

    struct ValueSource {
        var numbers: [Int64]
        var index = 0

        mutating func next() -> Int64 {
            defer { index += 1 }
            return numbers.isEmpty ? 0 : numbers[index % numbers.count]
        }

        mutating func string() -> String {
            let count = Int(next().magnitude % 5)
            return (0..<count).map { _ in CanonicalJSONTests.pieces[Int(next().magnitude % UInt64(CanonicalJSONTests.pieces.count))] }.joined()
        }

        mutating func value(depth: Int) -> JSONValue {
            let choice = next().magnitude % (depth < 3 ? 6 : 4)
            switch choice {
            case 0: return .null
            case 1: return .bool(next() % 2 == 0)
            case 2: return .integer(next())
            case 3: return .string(string())
            case 4: return .array((0..<Int(next().magnitude % 4)).map { _ in value(depth: depth + 1) })
            default:
                var members: [String: JSONValue] = [:]
                for _ in 0..<Int(next().magnitude % 5) { members[string()] = value(depth: depth + 1) }
                return .object(members)
            }
        }
    }

    static func foundation(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let flag): flag
        case .integer(let number): NSNumber(value: number)
        case .string(let text): text
        case .array(let elements): elements.map(foundation)
        case .object(let members): members.mapValues(foundation)
        }
    }

    static func sampleRoot() -> JSONValue {
        let key = MetadataKey(ed25519PublicKey: Array(repeating: 7, count: 32))
        let root = RootMetadata(
            header: MetadataHeader(version: 3, expires: Date(timeIntervalSince1970: 1_900_000_000)), keys: [key.keyID: key],
            roles: Dictionary(uniqueKeysWithValues: RootMetadata.roleNames.map { ($0, RoleKeys(keyIDs: [key.keyID], threshold: 1)) }))
        return root.signedJSON
    }
}
