import ContentPackaging
import PropertyBased
import Testing

private let nameCharacter = Gen.element(of: Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_. éüß漢字")).map { $0! }
private let componentGen = nameCharacter.string(of: 1...40).filter { $0 != "." && $0 != ".." }
private let pathGen = componentGen.array(of: 1...6).map { "Contents/" + $0.joined(separator: "/") }

@Suite("PathRules properties")
struct PathRulesPropertyTests {
    @Test("ordinary relative paths have no problems")
    func ordinaryPathsPass() async {
        await propertyCheck(input: pathGen) { path in
            #expect(PathRules.problems(inPath: Array(path.utf8)).isEmpty, "\(path)")
        }
    }

    @Test("a control character anywhere is reported")
    func controlCharacters() async {
        await propertyCheck(input: pathGen, Gen.uint8(in: 1...0x1F), Gen.int(in: 0...200)) { path, control, position in
            var bytes = Array(path.utf8)
            // Insert at a byte position that does not split a UTF-8 sequence.
            var index = min(position, bytes.count)
            while index < bytes.count, bytes[index] & 0xC0 == 0x80 { index += 1 }
            bytes.insert(control, at: index)
            #expect(PathRules.problems(inPath: bytes).contains { $0.contains("control character") })
        }
    }

    @Test("components longer than 255 bytes are reported; 255 is fine")
    func componentLength() async {
        await propertyCheck(input: Gen.int(in: 1...400)) { length in
            let path = "Contents/" + String(repeating: "x", count: length)
            let problems = PathRules.problems(inPath: Array(path.utf8))
            #expect(problems.contains { $0.contains("limit is 255") } == (length > 255))
        }
    }

    @Test("paths longer than 1024 bytes are reported")
    func pathLength() async {
        await propertyCheck(input: Gen.int(in: 1...12)) { count in
            let path = "Contents/" + Array(repeating: String(repeating: "y", count: 100), count: count).joined(separator: "/")
            let problems = PathRules.problems(inPath: Array(path.utf8))
            #expect(problems.contains { $0.contains("limit is 1024") } == (path.utf8.count > 1024))
        }
    }

    @Test("case variants and NFC/NFD spellings share a collision key")
    func collisionKeys() async {
        await propertyCheck(input: pathGen) { path in
            // Full uppercasing is not a file-system case variant when it changes length (ß → SS); skip those.
            if path.uppercased().lowercased() == path.lowercased() {
                #expect(PathRules.collisionKey(path.uppercased()) == PathRules.collisionKey(path.lowercased()))
            }
            let decomposed = path.decomposedStringWithCanonicalMappingIfAvailable
            #expect(PathRules.collisionKey(decomposed) == PathRules.collisionKey(path))
        }
    }

    @Test("invalid UTF-8, '..', absolute and backslash paths are rejected")
    func rejects() {
        #expect(PathRules.problems(inPath: Array("Contents/a".utf8) + [0xFF]) == ["name is not valid UTF-8; rename it"])
        #expect(!PathRules.problems(inPath: Array("Contents/../etc".utf8)).isEmpty)
        #expect(!PathRules.problems(inPath: Array("/etc/passwd".utf8)).isEmpty)
        #expect(!PathRules.problems(inPath: Array("Contents/a\\b".utf8)).isEmpty)
        #expect(!PathRules.problems(inPath: Array("Contents//b".utf8)).isEmpty)
    }
}

extension String {
    /// NFD built from Unicode scalars (`é` → `e` + U+0301) without Foundation, for the few letters the generator uses.
    fileprivate var decomposedStringWithCanonicalMappingIfAvailable: String {
        var scalars = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            switch scalar {
            case "é": scalars.append("e"); scalars.append("\u{301}")
            case "ü": scalars.append("u"); scalars.append("\u{308}")
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }
}
