import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The `Packs` and `Variants` keys of the sample product the README walks through.
var voicesProductKeys: [String: Any] { [
    "Packs": [
        "hires": ["Policy": "prefetch", "Paths": ["Contents/HiRes"]],
        "voices": ["Policy": "onDemand", "Paths": ["Contents/Voices"]],
    ],
    "Variants": ["language": ["Default": "en", "Fallback": ["pt-BR": ["pt"]]]],
] }

@Suite("Pack declarations")
struct PackDeclarationTests {
    @Test("a declaration reads back as written, sorted, with no problem")
    func readsDeclaration() throws {
        let (declaration, problems) = PackDeclaration.read(voicesProductKeys)
        #expect(problems.isEmpty)
        #expect(declaration.packs.map(\.id) == ["hires", "voices"])
        #expect(declaration.policy(ofPack: "voices") == .onDemand)
        #expect(declaration.policy(ofPack: "core") == .essential)
        #expect(declaration.packID(forInstallPath: "Contents/Voices/a.ogg") == "voices")
        #expect(declaration.packID(forInstallPath: "Contents/VoicesExtra/a.ogg") == "core")
        #expect(declaration.axis(named: "language")?.defaultValue == "en")
        #expect(declaration.axis(named: "texture") != nil)
        #expect(declaration.axis(named: "quality") == nil)
    }

    @Test("every hostile declaration is refused with the key and a reason, one problem each")
    func refusesHostileDeclarations() {
        let keys: [String: Any] = [
            "Packs": [
                "core": ["Policy": "essential", "Paths": ["Contents/A"]],
                "late": ["Policy": "whenever", "Paths": ["Contents/B"]],
                "escape": ["Policy": "prefetch", "Paths": ["Contents/../etc"]],
                "outside": ["Policy": "prefetch", "Paths": ["ContentInfo.plist"]],
                "inner": ["Policy": "prefetch", "Paths": ["Contents/C/D"]],
                "outer": ["Policy": "prefetch", "Paths": ["Contents/C"], "Size": 3],
                "variant": ["Policy": "prefetch", "Paths": ["Contents/V#language=de"]],
            ],
            "Variants": ["language": ["Fallback": ["pt-BR": ["pt"], "pt": ["pt-BR"]]]],
        ]
        let problems = PackDeclaration.read(keys).problems.map(\.description)
        func has(_ key: String, _ words: String) -> Bool {
            problems.contains { $0.contains("ContentInfo.plist \(key)") && $0.contains(words) }
        }
        #expect(has("Packs.core", "implicit essential pack"))
        #expect(has("Packs.late.Policy", "'whenever' is not a download policy; use one of essential, prefetch, onDemand"))
        #expect(has("Packs.escape.Paths[0]", "'..'"))
        #expect(has("Packs.outside.Paths[0]", "not under Contents/"))
        #expect(has("Packs.outer.Size", "is not a pack key"))
        #expect(has("Packs.variant.Paths[0]", "names a variant"))
        #expect(has("Variants.language.Fallback", "cycle (pt → pt-BR → pt)"))
        #expect(problems.count == 7, "\(problems)")
        // Overlap is checked on the packs that read well.
        let overlapping: [String: Any] = ["Packs": [
            "inner": ["Policy": "prefetch", "Paths": ["Contents/C/D"]], "outer": ["Policy": "prefetch", "Paths": ["Contents/C"]],
        ]]
        let overlap = PackDeclaration.read(overlapping).problems.map(\.description)
        #expect(overlap == ["ContentInfo.plist Packs.outer.Paths: Contents/C holds Contents/C/D (pack inner); packs may not overlap — list each folder in one pack"])
    }

    @Test("a language falls back to its declared values, its shorter forms, then the default")
    func languageChain() {
        let axis = PackDeclaration.Axis(name: "language", defaultValue: "en", fallback: ["pt-BR": ["pt-PT"]])
        #expect(axis.chain(preferring: ["pt_BR", "de"]) == ["pt_BR", "pt-PT", "pt", "de", "en"])
        #expect(axis.chain(preferring: []) == ["en"])
        let texture = PackDeclaration.Axis(name: "texture", fallback: ["astc": ["etc2"]])
        #expect(texture.chain(preferring: ["astc"]) == ["astc", "etc2"])
    }

    @Test("the system profile reads LANGUAGE, then LC_ALL, LC_MESSAGES and LANG")
    func systemProfile() throws {
        #expect(DeviceProfile.languages(environment: ["LANGUAGE": "pt_BR:pt:en", "LANG": "de_DE.UTF-8"]) == ["pt-BR", "pt", "en"])
        #expect(DeviceProfile.languages(environment: ["LANG": "de_DE.UTF-8@euro"]) == ["de-DE"])
        #expect(DeviceProfile.languages(environment: ["LC_ALL": "C", "LANG": "fr_FR"]) == [])
        #expect(DeviceProfile.system(environment: [:]).values["arch"]?.isEmpty == false)
        var profile = DeviceProfile()
        try profile.set("texture=astc,etc2")
        #expect(profile.values["texture"] == ["astc", "etc2"])
        #expect(throws: PackProblem.self) { try profile.set("Language=fr") }
        #expect(throws: PackProblem.self) { try profile.set("language=") }
    }

    @Test("a manifest carries its declaration through both encodings")
    func manifestRoundTrip() throws {
        let directory = try TemporaryDirectory("packs-manifest")
        let folder = try PackageFixture.make(
            at: directory.appending("pkg"),
            files: [
                "Contents/core.txt": Data("core".utf8), "Contents/HiRes/big.bin": Data("hi".utf8),
                "Contents/Voices#language=de/a.ogg": Data("de".utf8), "Contents/Voices#language=fr/a.ogg": Data("fr".utf8),
            ],
            extraKeys: voicesProductKeys)
        let result = try Packer().pack(folder: folder, outputDirectory: directory.appending("out"))
        let expected = PackDeclaration.read(voicesProductKeys).declaration
        #expect(result.manifest.packs == expected)
        #expect(try PackageManifest.decode(contentsOfFile: result.manifestURL.path).packs == expected)
        #expect(try PackageManifest.decode(result.manifest.encoded()).packs == expected)
        // A folder without the keys writes no declaration: its manifest is what it always was.
        let plain = try PackageFixture.make(at: directory.appending("plain"))
        #expect(try Packer().pack(folder: plain, outputDirectory: directory.appending("plain-out")).manifest.packs == nil)
    }

    @Test("validate lists every variant path problem, one line each, naming the path")
    func validateVariantPaths() throws {
        let directory = try TemporaryDirectory("packs-validate")
        let folder = try PackageFixture.make(
            at: directory.appending("pkg"),
            files: [
                "Contents/Voices#language=de/a.ogg": Data("de".utf8),
                "Contents/Voices#texture=astc/a.ogg": Data("x".utf8),
                "Contents/Music#mood=calm/a.ogg": Data("m".utf8),
                "Contents/Art#language/a.png": Data("a".utf8),
                "Contents/Split#language=de/x/a.txt": Data("1".utf8),
            ],
            extraKeys: ["Packs": [
                "split": ["Policy": "onDemand", "Paths": ["Contents/Split/x"]],
                "ghost": ["Policy": "prefetch", "Paths": ["Contents/Nothing"]],
            ]])
        let report = PackageValidator().validate(folder: folder)
        let lines = report.problems.map(\.description)
        #expect(lines.contains { $0.hasPrefix("Contents/Voices#texture=astc/a.ogg: collides: variants of Contents/Voices use the axis 'language' and 'texture'") })
        #expect(lines.contains { $0.hasPrefix("Contents/Music#mood=calm/a.ogg: names the axis 'mood', which is neither standard") })
        #expect(!lines.contains { $0.hasPrefix("Contents/Art#language/") }, "a '#' without axis=value is an ordinary name")
        #expect(lines.contains { $0.contains("variant folder Contents/Split is in pack 'core'") && $0.contains("may not select files outside its pack") })
        #expect(lines.contains { $0 == "ContentInfo.plist: Packs.ghost.Paths: Contents/Nothing names nothing in the folder; fix the path or remove it" })
        #expect(!report.isValid)
    }
}
