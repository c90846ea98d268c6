@testable import ContentPackaging
import PropertyBased
import Testing

private let textCharacter = Gen.element(of: Array("abcXYZ019_$+/:.-  \"\\\n\t\r;={}(),<>*éß漢\u{1}\u{7F}")).map { $0! }
private let textGen = textCharacter.string(of: 0...12)
private let bytesGen = Gen.uint8(in: 0...255).array(of: 0...8)

/// Builds a nested value from generated pieces: `shape` picks each node's kind and size (deterministic).
private func value(strings: [String], data: [[UInt8]], shape: [Int], depth: Int = 0, cursor: inout Int) -> OldStylePropertyList {
    func next() -> Int {
        defer { cursor += 1 }
        return shape.isEmpty ? 0 : shape[cursor % shape.count]
    }
    let kind = depth >= 4 ? next() % 2 : next() % 4
    switch kind {
    case 0: return .string(strings.isEmpty ? "" : strings[next() % strings.count])
    case 1: return .data(data.isEmpty ? [] : data[next() % data.count])
    case 2:
        return .array((0..<(next() % 4)).map { _ in value(strings: strings, data: data, shape: shape, depth: depth + 1, cursor: &cursor) })
    default:
        var entries: [String: OldStylePropertyList] = [:]
        for _ in 0..<(next() % 4) {
            let key = strings.isEmpty ? "k" : strings[next() % strings.count]
            entries[key] = value(strings: strings, data: data, shape: shape, depth: depth + 1, cursor: &cursor)
        }
        return .dictionary(entries)
    }
}

private let treeGen = zip(textGen.array(of: 1...8), bytesGen.array(of: 1...4), Gen.int(in: 0...99).array(of: 1...30))
    .map { strings, data, shape in
        var cursor = 0
        return value(strings: strings, data: data, shape: shape, cursor: &cursor)
    }

@Suite("Old-style property lists (project.pbxproj)")
struct OldStylePropertyListTests {
    @Test("any value reads back from its text")
    func roundTrip() async {
        await propertyCheck(input: treeGen) { tree in
            #expect((try? OldStylePropertyList.parse(Array(tree.text.utf8))) == tree, "\(tree.text)")
        }
    }

    @Test("comments and white space between tokens change nothing")
    func commentsAnywhere() async {
        let fillers = ["", " ", "\n", "\t", "/* a comment */", "// to the end of the line\n", "/* spans\nlines */"]
        await propertyCheck(input: treeGen, Gen.int(in: 0...6).array(of: 1...40)) { tree, picks in
            var text = ""
            var index = 0
            // Only between tokens: after each structural character of the canonical text outside strings.
            var inQuote = false
            var escaped = false
            for character in tree.text {
                text.append(character)
                if inQuote {
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inQuote = false }
                    continue
                }
                if character == "\"" { inQuote = true; continue }
                if "{}();=,".contains(character) {
                    text += fillers[picks[index % picks.count]]
                    index += 1
                }
            }
            #expect((try? OldStylePropertyList.parse(Array(text.utf8))) == tree, "\(text)")
        }
    }

    @Test("every strict prefix of a dictionary is an error, never a crash")
    func truncated() async {
        await propertyCheck(input: treeGen, Gen.int(in: 0...10_000)) { tree, cut in
            let text = Array(OldStylePropertyList.dictionary(["k": tree]).text.utf8)
            let prefix = Array(text[..<(cut % text.count)])
            #expect(throws: OldStylePropertyListError.self) { try OldStylePropertyList.parse(prefix) }
        }
    }

    @Test("an Xcode project's text: header comment, sections, quoted and bare strings, data, escapes")
    func xcodeText() throws {
        let text = """
            // !$*UTF8*$!
            {
            \tarchiveVersion = 1;
            \tobjects = {

            /* Begin PBXFileReference section */
            \t\tA1 /* a b.json */ = {isa = PBXFileReference; path = "a b.json"; sourceTree = "<group>"; };
            /* End PBXFileReference section */
            \t};
            \tnote = "tab\\there \\"quoted\\" \\U00e9 \\101";
            \tblob = <0fA1 ff>;
            \tlist = (one, "two", );
            \trootObject = A1;
            }
            """
        let value = try OldStylePropertyList.parse(Array(text.utf8))
        let root = try #require(value.dictionary)
        #expect(root["archiveVersion"] == .string("1"))
        #expect(root["objects"]?.dictionary?["A1"]?.dictionary?["path"] == .string("a b.json"))
        #expect(root["objects"]?.dictionary?["A1"]?.dictionary?["sourceTree"] == .string("<group>"))
        #expect(root["note"] == .string("tab\there \"quoted\" é A"))
        #expect(root["blob"] == .data([0x0F, 0xA1, 0xFF]))
        #expect(root["list"] == .array([.string("one"), .string("two")]))
    }

    @Test("errors name the line and what was expected")
    func errors() {
        let cases: [(String, Int, String)] = [
            ("{\n a = b\n}", 3, "';' was expected after the value of 'a'"),
            ("{ a = \"open;\n}", 1, "never ends"),
            ("(a b)", 1, "',' or ')' was expected"),
            ("{ a = <0g>; }", 1, "hex digits"),
            ("/* no end", 1, "never ends"),
            ("{ a = b; } x", 1, "after the top-level value"),
        ]
        for (text, line, message) in cases {
            do {
                _ = try OldStylePropertyList.parse(Array(text.utf8))
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.line == line, "\(text): \(error)")
                #expect(error.message.contains(message), "\(text): \(error)")
            }
        }
    }

    @Test("nesting past the limit is refused, not a stack overflow")
    func depth() {
        let deep = String(repeating: "(", count: 100_000) + String(repeating: ")", count: 100_000)
        #expect(throws: OldStylePropertyListError.self) { try OldStylePropertyList.parse(Array(deep.utf8)) }
        let fine = String(repeating: "(", count: OldStylePropertyList.maxDepth) + String(repeating: ")", count: OldStylePropertyList.maxDepth)
        #expect((try? OldStylePropertyList.parse(Array(fine.utf8))) != nil)
    }
}
