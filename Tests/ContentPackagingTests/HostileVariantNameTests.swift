import ContentPackaging
import Foundation
import PropertyBased
import Testing
import TestSupport

/// Variant and pack names as an attacker writes them: every one `validate` refuses (so `pack` and `catalog`, which
/// validate first, never write it), and every one a client refuses when a signed manifest carries it anyway
/// (``SelectedContent/problems``). The property test maps generated names and checks that every install path a
/// selection gives is inside `Contents/`, or the manifest is refused.
@Suite("Hostile variant names")
struct HostileVariantNameTests {
    /// Variant paths that must be refused, each with a fragment of the reason.
    static let corpus: [(paths: [String], reason: String)] = [
        (["Contents/..#language=de/pwned.txt"], "'..' component"),
        (["Contents/..#language=de/..#texture=astc/pwned.txt"], "'..' component"),
        ([String(repeating: "..#language=zz/", count: 40).prefixed("Contents/") + "etc/passwd"], "'..' component"),
        (["Contents/.#language=de/a.txt"], "'.' component"),
        (["Contents/Voices#language=../a.txt"], "is not a value"),
        (["Contents/Voices#language=./a.txt"], "is not a value"),
        (["Contents/#language=de/a.txt"], "variant of nothing"),
        (["Contents/Voices#language=pt_BR/a.txt", "Contents/Voices#language=pt-BR/b.txt"], "as one value"),
        (["Contents/Voices#language=DE/a.txt", "Contents/Voices#language=de/b.txt"], "as one value"),
        (["Contents/voices/a.txt", "Contents/Voices#language=de/a.txt"], "case-insensitive"),
        (["Contents/Voices#language=de/A.txt", "Contents/Voices/a.txt"], "case-insensitive"),
    ]

    @Test("validate refuses every hostile variant name, naming the path", arguments: corpus.indices)
    func validateRefuses(_ index: Int) throws {
        let (paths, reason) = Self.corpus[index]
        let directory = try TemporaryDirectory()
        var files: [String: Data] = ["Contents/core.txt": Data("core".utf8)]
        for path in paths { files[path] = Data(path.utf8) }
        let folder = try PackageFixture.make(at: directory.appending("pkg"), files: files)
        let report = PackageValidator().validate(folder: folder)
        let lines = report.problems.map(\.description)
        #expect(!report.isValid, "\(paths) accepted")
        #expect(lines.contains { $0.contains(reason) }, "\(paths): \(lines)")
        #expect(FileManager.default.fileExists(atPath: directory.appending("pkg").path), "nothing outside was touched")
    }

    @Test("a client refuses every hostile variant name in a manifest", arguments: corpus.indices)
    func clientRefuses(_ index: Int) {
        let (paths, _) = Self.corpus[index]
        let manifest = selectionManifest(["ContentInfo.plist", "Contents/core.txt"] + paths, declaration: PackDeclaration())
        for profile in [DeviceProfile(), DeviceProfile(values: ["language": ["de"], "texture": ["astc"]])] {
            let content = SelectedContent(manifest: manifest, selection: PackSelection(profile: profile))
            let escapes = content.installPaths.values.filter { InstallPath.problem($0) != nil }
            #expect(!content.problems.isEmpty || escapes.isEmpty, "\(paths): accepted with escaping install paths \(escapes)")
            if paths.contains(where: { $0.contains("..#") || $0.contains("/.#") }) {
                #expect(!content.problems.isEmpty, "\(paths) accepted")
            }
        }
    }

    @Test("the install path check refuses what leaves the folder")
    func installPathCheck() {
        for bad in ["", "/etc/passwd", "Contents/../x", "Contents/./x", "Contents//x", "Contents/x/", "x/y", "..", "Contents/a\u{0}b",
                    "Contents/a\\b", "Contents/" + String(repeating: "a", count: 256), "Contents/\u{7F}", "ContentInfo.plist/x"] {
            #expect(InstallPath.problem(bad) != nil, "\(bad.debugDescription) accepted")
        }
        for good in ["ContentInfo.plist", "Contents", "Contents/a", "Contents/...", "Contents/.hidden", "Contents/Voices/a.ogg", "Contents/é/ü"] {
            #expect(InstallPath.problem(good) == nil, "\(good) refused: \(InstallPath.problem(good) ?? "")")
        }
    }

    @Test("any generated variant names: every install path a selection gives lies inside Contents/, or the manifest is refused")
    func generatedNamesStayInside() async {
        let names = Gen.element(of: ["..", ".", "", "Voices", "a", "A", "#", "=", "x#language", "é", "e\u{301}"]).map { $0! }
        let axis = Gen.element(of: ["language", "texture", "arch", "mood", "", "LANG"]).map { $0! }
        let value = Gen.element(of: ["de", "fr", "..", ".", "", "pt_BR", "pt-BR", "DE", "a/b", "x=y"]).map { $0! }
        let component = zip(names, axis, value, Gen.int(in: 0...3)).map { name, axis, value, form -> String in
            switch form {
            case 0: return name
            case 1: return "\(name)#\(axis)=\(value)"
            case 2: return "\(name)#\(axis)"
            default: return "#\(axis)=\(value)"
            }
        }
        let path = component.array(of: 1...6).map { "Contents/" + $0.joined(separator: "/") }
        await propertyCheck(count: 300, input: path.array(of: 1...5), Gen.element(of: ["de", "fr", "pt-BR", "zz"]).map { $0! }) { paths, language in
            // Paths a manifest decoder refuses never reach the selection: only PathRules-clean ones are generated on.
            let clean = Array(Set(paths.filter { PathRules.problems(inPath: Array($0.utf8)).isEmpty && !$0.hasSuffix("/") }))
            guard !clean.isEmpty else { return }
            let manifest = selectionManifest(["ContentInfo.plist"] + clean, declaration: PackDeclaration())
            let content = SelectedContent(
                manifest: manifest, selection: PackSelection(profile: DeviceProfile(values: ["language": [language], "texture": ["astc"]])))
            guard content.problems.isEmpty else { return }
            for index in content.files {
                let installed = content.installPath(of: index, in: manifest)
                #expect(InstallPath.problem(installed) == nil, "\(manifest.files[index].path) installs at \(installed)")
                #expect(!installed.split(separator: "/").contains(".."), "\(installed)")
            }
            let installed = content.files.map { PathRules.collisionKey(content.installPath(of: $0, in: manifest)) }
            #expect(Set(installed).count == installed.count, "two files install at one place: \(installed)")
        }
    }
}

private extension String {
    /// `prefix` followed by this string.
    func prefixed(_ prefix: String) -> String { prefix + self }
}
