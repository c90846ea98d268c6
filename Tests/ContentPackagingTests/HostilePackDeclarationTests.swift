import ContentPackaging
import Foundation
import PropertyBased
import Testing
import TestSupport

/// Pack declarations as a hostile or careless publisher writes them — in `ContentInfo.plist` (what `validate` reads)
/// and in a manifest's pack section (what a client reads, never having seen `validate`): each is refused with its key
/// and a reason, without a crash, a stack overflow or time that grows with the square of its size.
@Suite("Hostile pack declarations")
struct HostilePackDeclarationTests {
    /// A fallback chain `v0 → v1 → … → v<steps>` (a cycle back to `v0` when `cyclic`).
    static func chain(_ steps: Int, cyclic: Bool = false) -> [String: [String]] {
        var fallback: [String: [String]] = [:]
        for step in 0..<steps { fallback["v\(step)"] = ["v\(step + 1)"] }
        if cyclic { fallback["v\(steps)"] = ["v0"] }
        return fallback
    }

    @Test("a 40 000-step Fallback chain in ContentInfo.plist is refused by validate, not a stack overflow")
    func deepPlistChain() throws {
        let read = PackDeclaration.read(["Variants": ["language": ["Default": "de", "Fallback": Self.chain(40_000)]]])
        #expect(read.problems.map(\.description).contains { $0.contains("Variants.language.Fallback") && $0.contains("at most 256") })
        let directory = try TemporaryDirectory()
        let folder = try PackageFixture.make(
            at: directory.appending("pkg"), files: ["Contents/Voices#language=de/a.ogg": Data("de".utf8)],
            extraKeys: ["Variants": ["language": ["Default": "de", "Fallback": Self.chain(5_000)]]])
        let report = PackageValidator().validate(folder: folder)
        #expect(report.problems.map(\.description).contains { $0.contains("Variants.language.Fallback") && $0.contains("at most 256") }, "\(report.problems.map(\.description))")
    }

    @Test("cycles and chains of any length are checked without recursion")
    func longCycles() {
        let long = PackDeclaration.Axis(name: "language", fallback: Self.chain(200_000, cyclic: true))
        #expect(long.fallbackCycle()?.count == 200_002)
        #expect(PackDeclaration.Axis(name: "language", fallback: Self.chain(200_000)).fallbackCycle() == nil)
        let chain = PackDeclaration.Axis(name: "language", defaultValue: "en", fallback: Self.chain(200_000)).chain(preferring: ["v0"])
        #expect(chain.count == 200_002 && chain.first == "v0" && chain.last == "en")
    }

    @Test("a manifest's declaration: duplicates, core, sizes and bad values are problems, one each")
    func manifestDeclarations() {
        func problems(_ declaration: PackDeclaration) -> [String] { declaration.problems().map(\.description) }
        var twice = PackDeclaration(packs: [.init(id: "hires", policy: .prefetch, paths: ["Contents/A"])])
        twice.packs.append(.init(id: "hires", policy: .onDemand, paths: ["Contents/B"]))
        #expect(problems(twice).contains { $0.contains("Packs.hires") && $0.contains("declared twice") })
        var core = PackDeclaration()
        core.packs.append(.init(id: "core", policy: .onDemand, paths: ["Contents/B"]))
        #expect(problems(core).contains { $0.contains("Packs.core") })
        var axes = PackDeclaration(axes: [.init(name: "mood")])
        axes.axes.append(.init(name: "mood"))
        #expect(problems(axes).contains { $0.contains("Variants.mood") && $0.contains("declared twice") })
        let many = PackDeclaration(axes: (0..<17).map { PackDeclaration.Axis(name: "a\($0)") })
        #expect(problems(many).contains { $0.contains("17 axes") })
        let paths = PackDeclaration(packs: [.init(id: "p", policy: .prefetch, paths: (0..<257).map { "Contents/d\($0)" })])
        #expect(problems(paths).contains { $0.contains("257 paths") })
        let badValue = PackDeclaration(axes: [.init(name: "language", defaultValue: "..")])
        #expect(problems(badValue).contains { $0.contains("'..' is not a value") })
        // Both selection and size report survive a refused declaration (the client then refuses the manifest).
        let manifest = selectionManifest(["ContentInfo.plist", "Contents/A/a", "Contents/B/b"], declaration: twice)
        let content = SelectedContent(manifest: manifest, selection: PackSelection())
        #expect(!content.problems.isEmpty && content.files.isEmpty)
        _ = PackSizeReport(manifest: manifest)
    }

    @Test("any generated declaration is refused or selects only paths inside Contents/, never a crash")
    func generatedDeclarations() async {
        let id = Gen.element(of: ["core", "hires", "hires", "voices", "", "A", "x-1", "-x"]).map { $0! }
        let path = Gen.element(of: ["Contents/A", "Contents/A/B", "Contents/../A", "Contents", "ContentInfo.plist", "Contents/A#language=de", "Contents/B/", ""]).map { $0! }
        let policy = Gen.element(of: DownloadPolicy.allCases).map { $0! }
        let pack = zip(id, policy, path.array(of: 0...3)).map { PackDeclaration.Pack(id: $0, policy: $1, paths: $2) }
        let value = Gen.element(of: ["de", "en", "pt-BR", "pt", "..", "", "DE"]).map { $0! }
        let axis = zip(Gen.element(of: ["language", "mood", "Mood", "texture"]).map { $0! }, value, zip(value, value.array(of: 0...3)).array(of: 0...4))
            .map { name, fallbackDefault, pairs in
                PackDeclaration.Axis(name: name, defaultValue: fallbackDefault, fallback: Dictionary(pairs, uniquingKeysWith: { first, _ in first }))
            }
        await propertyCheck(count: 300, input: pack.array(of: 0...4), axis.array(of: 0...3)) { packs, axes in
            var declaration = PackDeclaration()
            declaration.packs = packs
            declaration.axes = axes
            let paths = ["ContentInfo.plist", "Contents/A/a", "Contents/A#language=de/b", "Contents/A#language=en/b", "Contents/B/c"]
            let manifest = selectionManifest(paths, declaration: declaration)
            let content = SelectedContent(manifest: manifest, selection: PackSelection(packs: Set(packs.map(\.id)), profile: DeviceProfile(values: ["language": ["pt-BR"]])))
            _ = PackSizeReport(manifest: manifest)
            guard content.problems.isEmpty else { return }
            #expect(Set(packs.map(\.id)).count == packs.count && !packs.contains { $0.id == "core" }, "accepted \(packs)")
            for index in content.files {
                #expect(InstallPath.problem(content.installPath(of: index, in: manifest)) == nil)
            }
        }
    }
    @Test("a pack declaration longer than the inflater's window (8 KiB) decodes from a file, not a precondition failure")
    func longDeclarationFromFile() throws {
        let packs = (0..<100).map { index in
            PackDeclaration.Pack(id: "pack-\(index)", policy: .onDemand, paths: (0..<3).map { "Contents/Level\(index)/part-with-a-long-name-\($0)" })
        }
        var manifest = selectionManifest(["ContentInfo.plist", "Contents/Level0/part-with-a-long-name-0/a"], declaration: PackDeclaration(packs: packs))
        manifest.archiveSHA256 = String(repeating: "ab", count: 32)
        let directory = try TemporaryDirectory()
        let file = directory.appending("long.manifest")
        try manifest.compactEncoded().write(to: file)
        let decoded = try PackageManifest.decode(contentsOfFile: file.path)
        #expect(decoded.packs == manifest.packs)
    }
    /// Seeded fuzzing of the two places a declaration is read: a `ContentInfo.plist`'s `Packs`/`Variants` (any
    /// nesting of dictionaries, arrays, strings, numbers, booleans and data where the keys are expected) and a
    /// manifest's pack section (the canonical JSON of a real declaration with bytes flipped, cut or repeated). Every
    /// input is read, checked and applied without a crash, and a declaration read is refused or selects only paths
    /// inside `Contents/`.
    @Test("fuzzed plist declarations and mutated manifest pack sections never crash a reader")
    func fuzzedDeclarations() async throws {
        let leaf = Gen.element(of: ["essential", "prefetch", "onDemand", "Contents/A", "Contents/../x", "", "core", "de", "pt-BR", "..", "#", "Contents"]).map { $0! }
        let key = Gen.element(of: ["Packs", "Variants", "Policy", "Paths", "Default", "Fallback", "hires", "core", "language", "de", "x", ""]).map { $0! }
        let kind = Gen.int(in: 0...5)
        await propertyCheck(count: 400, input: zip(key.array(of: 1...6), leaf.array(of: 1...6), kind.array(of: 1...6))) { keys, leaves, kinds in
            // A nesting built from the three lists: each level a dictionary, an array, a leaf or another type.
            var value: Any = leaves[0]
            for (index, kind) in kinds.enumerated() {
                let name = keys[index % keys.count], text = leaves[index % leaves.count]
                switch kind {
                case 0: value = [name: value]
                case 1: value = [value, text]
                case 2:
                    var fields: [String: Any] = ["Policy": text, "Paths": [text]]
                    fields[name] = value  // a generated key may be Policy or Paths itself
                    value = fields
                case 3: value = [name: [text: [value, text]]]
                case 4: value = 42
                default: value = Data([0, 1])
                }
            }
            let (declaration, _) = PackDeclaration.read(["Packs": value, "Variants": [keys[0]: value]])
            _ = declaration.problems()
            let manifest = selectionManifest(["ContentInfo.plist", "Contents/A/a", "Contents/A#language=de/b"], declaration: declaration)
            let content = SelectedContent(manifest: manifest, selection: PackSelection(packs: Set(keys)))
            if content.problems.isEmpty {
                for index in content.files { #expect(InstallPath.problem(content.installPath(of: index, in: manifest)) == nil) }
            }
        }
        let valid = PackDeclaration(
            packs: [.init(id: "hires", policy: .prefetch, paths: ["Contents/HiRes"]), .init(id: "voices", policy: .onDemand, paths: ["Contents/Voices"])],
            axes: [.init(name: "language", defaultValue: "en", fallback: ["pt-BR": ["pt"]])])
        let json = Array(try JSONEncoder().encode(valid))
        await propertyCheck(count: 400, input: Gen.int(in: 0...(json.count - 1)).array(of: 1...4), Gen.int(in: 0...255).array(of: 1...4)) { positions, bytes in
            var mutated = json
            for (position, byte) in zip(positions, bytes) {
                switch byte % 3 {
                case 0: mutated[position % mutated.count] = UInt8(byte)
                case 1: mutated.removeSubrange((position % mutated.count)...)
                default: mutated.insert(contentsOf: mutated[(position % mutated.count)...].prefix(8), at: position % mutated.count)
                }
                if mutated.isEmpty { break }
            }
            guard let declaration = try? JSONDecoder().decode(PackDeclaration.self, from: Data(mutated)) else { return }
            let manifest = selectionManifest(["ContentInfo.plist", "Contents/HiRes/t", "Contents/Voices#language=de/a"], declaration: declaration)
            let content = SelectedContent(manifest: manifest, selection: PackSelection(packs: ["hires", "voices"]))
            _ = PackSizeReport(manifest: manifest)
            if content.problems.isEmpty {
                for index in content.files { #expect(InstallPath.problem(content.installPath(of: index, in: manifest)) == nil) }
            }
        }
    }
}
