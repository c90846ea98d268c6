import ContentPackaging
import PropertyBased
import Testing

/// Components chosen to hit every rule: the two root names and a wrong-case one, case and NFC/NFD
/// variants, `.`/`..`/empty components, a backslash, a control character and a leading combining mark.
private let firstComponent = Gen.element(of: ["Contents", "Contents", "Contents", "ContentInfo.plist", "contents", "..", "", "Other"])
    .map { $0! }
private let laterComponent = Gen.element(of: [
    "a", "a", "A", "b", "caf\u{E9}", "cafe\u{301}", "..", ".", "", "x\\y", "\u{1}", "\u{301}x", "Contents",
]).map { $0! }
private let kinds: [ArchiveEntryHeader.Kind] = [.regular, .regular, .regular, .directory, .directory, .symlink, .hardlink, .fifo]
/// One header: a path of one to four components (sometimes with a trailing `/`) and a kind.
private let headerGen = zip(
    firstComponent, laterComponent.array(of: 0...3), Gen.element(of: kinds).map { $0! }, Gen.int(in: 0...3)
).map { first, rest, kind, slash in
    let path = ([first] + rest).joined(separator: "/") + (slash == 0 ? "/" : "")
    return ArchiveEntryHeader(pathBytes: Array(path.utf8), kind: kind, size: 0, permissions: 0o644)
}
/// A lowercase ASCII name, so its uppercase spelling always differs.
private let lowercaseName = Gen.element(of: Array("abcdefghijklmnopqrstuvwxyz")).map { $0! }.string(of: 1...20)

@Suite("ArchiveLayoutRules properties")
struct ArchiveLayoutRulesPropertyTests {
    @Test("an accepted entry is a file or directory, passes PathRules and lies inside the layout")
    func acceptedEntriesAreInsideTheLayout() async {
        await propertyCheck(count: 1000, input: headerGen.array(of: 1...12)) { headers in
            var rules = ArchiveLayoutRules()
            for header in headers {
                let verdict = rules.classify(header)
                guard verdict.isAccepted else { continue }
                #expect(header.kind == .regular || header.kind == .directory)
                #expect(PathRules.problems(inPath: header.pathBytes).isEmpty, "\(verdict.path)")
                let place: ArchiveLayoutPlace? = switch verdict.path {
                case "ContentInfo.plist": header.kind == .regular ? .contentInfo : nil
                case "Contents": header.kind == .directory ? .contentsDirectory : nil
                default: verdict.path.hasPrefix("Contents/") ? .content : nil
                }
                #expect(place != nil && verdict.place == place, "\(verdict.path) outside the layout")
            }
        }
    }

    @Test("accepted entries and their parents never collide, and no accepted file is another entry's parent")
    func acceptedEntriesNeverCollide() async {
        await propertyCheck(count: 1000, input: headerGen.array(of: 1...12)) { headers in
            var rules = ArchiveLayoutRules()
            var accepted: [(path: String, isDirectory: Bool)] = []
            for header in headers {
                let verdict = rules.classify(header)
                if verdict.isAccepted { accepted.append((verdict.path, header.kind == .directory)) }
            }
            let entryKeys = accepted.map { PathRules.collisionKey($0.path) }
            #expect(Set(entryKeys).count == entryKeys.count, "\(accepted.map(\.path))")
            // Every path and parent directory the accepted entries name has one spelling per key.
            var spellings: [String: String] = [:]
            for entry in accepted {
                let components = entry.path.split(separator: "/").map(String.init)
                for end in 1...components.count {
                    let spelling = components[..<end].joined(separator: "/")
                    let first = spellings[PathRules.collisionKey(spelling), default: spelling]
                    #expect(Array(first.utf8) == Array(spelling.utf8), "\(spelling) and \(first) both accepted")
                    spellings[PathRules.collisionKey(spelling)] = first
                }
            }
            for file in accepted where !file.isDirectory {
                let key = PathRules.collisionKey(file.path) + "/"
                #expect(!entryKeys.contains { $0.hasPrefix(key) }, "file \(file.path) used as a directory")
            }
        }
    }

    @Test("two paths that differ only by case collide")
    func caseVariantsCollide() async {
        await propertyCheck(input: lowercaseName, Gen.element(of: kinds).map { $0! }) { name, kind in
            var rules = ArchiveLayoutRules()
            let first = rules.classify(Self.header("Contents/" + name, kind: .regular))
            let second = rules.classify(Self.header("Contents/" + name.uppercased(), kind: kind))
            #expect(first.isAccepted)
            #expect(second.refusals.contains(.collides(other: "Contents/" + name)), "\(second.refusals)")
        }
    }

    @Test("a parent directory spelled with another case collides with the first spelling")
    func parentCaseVariantsCollide() async {
        await propertyCheck(input: lowercaseName) { name in
            var rules = ArchiveLayoutRules()
            #expect(rules.classify(Self.header("Contents/\(name)/a", kind: .regular)).isAccepted)
            let second = rules.classify(Self.header("Contents/\(name.uppercased())/b", kind: .regular))
            #expect(second.refusals == [
                .parentCollides(parent: "Contents/" + name.uppercased(), other: "Contents/" + name),
            ])
        }
    }

    @Test("NFC and NFD spellings of a name collide")
    func normalizationVariantsCollide() async {
        await propertyCheck(input: lowercaseName) { suffix in
            var rules = ArchiveLayoutRules()
            #expect(rules.classify(Self.header("Contents/caf\u{E9}" + suffix, kind: .regular)).isAccepted)
            let second = rules.classify(Self.header("Contents/cafe\u{301}" + suffix, kind: .regular))
            #expect(second.refusals == [.collides(other: "Contents/caf\u{E9}" + suffix)])
        }
    }

    @Test("the same header twice is a duplicate, with the first still accepted")
    func sameHeaderTwiceIsDuplicate() async {
        await propertyCheck(input: headerGen) { header in
            var rules = ArchiveLayoutRules()
            let first = rules.classify(header)
            let second = rules.classify(header)
            #expect(!first.refusals.contains(.duplicate))
            #expect(second.refusals.contains(.duplicate), "\(header.path)")
        }
    }

    @Test("a package's two root entries are missing until seen")
    func missingRootEntries() {
        var rules = ArchiveLayoutRules()
        #expect(rules.missingRootEntries == ["ContentInfo.plist", "Contents"])
        _ = rules.classify(Self.header("Contents/a", kind: .regular))
        #expect(rules.missingRootEntries == ["ContentInfo.plist"])
        _ = rules.classify(Self.header("ContentInfo.plist/", kind: .directory))
        #expect(rules.missingRootEntries == ["ContentInfo.plist"])
        _ = rules.classify(Self.header("ContentInfo.plist", kind: .regular))
        #expect(rules.missingRootEntries.isEmpty && rules.hasContentInfo && rules.hasContents)
    }

    private static func header(_ path: String, kind: ArchiveEntryHeader.Kind) -> ArchiveEntryHeader {
        ArchiveEntryHeader(pathBytes: Array(path.utf8), kind: kind, size: 0, permissions: 0o644)
    }
}
