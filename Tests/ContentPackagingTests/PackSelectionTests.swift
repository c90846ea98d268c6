import ContentPackaging
import Foundation
import PropertyBased
import Testing

/// A manifest of `paths` (each 10 bytes, in stream order by path) with `declaration`.
func selectionManifest(_ paths: [String], declaration: PackDeclaration?) -> PackageManifest {
    let sorted = paths.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    let files = sorted.enumerated().map { index, path in
        PackageManifest.File(path: path, size: 10, sha256: String(repeating: "0", count: 63) + "\(index % 10)", dataOffset: Int64(index) * 1024 + 512)
    }
    return PackageManifest(
        productID: "com.example.game", contentVersion: ContentVersion("1.0")!, archiveName: "a.tar.zst", archiveSize: 1,
        archiveSHA256: nil, uncompressedSize: Int64(files.count * 10), entryCount: files.count, files: files, packs: declaration)
}

@Suite("Pack selection")
struct PackSelectionTests {
    let declaration = PackDeclaration.read(voicesProductKeys).declaration
    let paths = [
        "ContentInfo.plist", "Contents/core.txt", "Contents/HiRes/big.bin",
        "Contents/Voices#language=de/a.ogg", "Contents/Voices#language=de/b.ogg",
        "Contents/Voices#language=fr/a.ogg", "Contents/Voices#language=en/a.ogg",
        "Contents/Art#texture=astc/t.bin", "Contents/Art/t.bin",
    ]

    func installed(_ selection: PackSelection) -> [String] {
        let manifest = selectionManifest(paths, declaration: declaration)
        let content = SelectedContent(manifest: manifest, selection: selection)
        #expect(content.problems.isEmpty)
        return content.files.map { content.installPath(of: $0, in: manifest) }.sorted()
    }

    @Test("essential packs only by default; a language picks one variant, installed at one path")
    func picksVariants() {
        let german = PackSelection(packs: ["voices"], profile: DeviceProfile(values: ["language": ["de-DE"]]))
        #expect(installed(german) == [
            "ContentInfo.plist", "Contents/Art/t.bin", "Contents/Voices/a.ogg", "Contents/Voices/b.ogg", "Contents/core.txt",
        ])
        #expect(installed(PackSelection()) == ["ContentInfo.plist", "Contents/Art/t.bin", "Contents/core.txt"])
        let manifest = selectionManifest(paths, declaration: declaration)
        let content = SelectedContent(manifest: manifest, selection: german)
        #expect(content.files.map { manifest.files[$0].path }.contains("Contents/Voices#language=de/b.ogg"))
        #expect(content.packs.map(\.id) == ["core", "hires", "voices"])
        #expect(content.packs.first { $0.id == "voices" }.map { ($0.selected, $0.files, $0.bytes) } ?? (false, 0, 0) == (true, 2, 20))
        #expect(content.packs.first { $0.id == "hires" }?.selected == false)
    }

    @Test("a missing language falls back to the default; a texture to the untagged folder")
    func fallsBack() {
        let japanese = PackSelection(packs: ["voices", "hires"], profile: DeviceProfile(values: ["language": ["ja"], "texture": ["astc"]]))
        #expect(installed(japanese) == [
            "ContentInfo.plist", "Contents/Art/t.bin", "Contents/HiRes/big.bin", "Contents/Voices/a.ogg", "Contents/core.txt",
        ])
        let manifest = selectionManifest(paths, declaration: declaration)
        let content = SelectedContent(manifest: manifest, selection: japanese)
        #expect(content.files.map { manifest.files[$0].path }.contains("Contents/Voices#language=en/a.ogg"))
        #expect(content.files.map { manifest.files[$0].path }.contains("Contents/Art#texture=astc/t.bin"))
        #expect(content.chosen["Contents/Art"] == .some("astc"))
        let etc = SelectedContent(manifest: manifest, selection: PackSelection(profile: DeviceProfile(values: ["texture": ["etc2"]])))
        #expect(etc.chosen["Contents/Art"] == .some(nil))
    }

    @Test("the selected manifest lists exactly the installed files and their folders")
    func selectedManifest() {
        let manifest = selectionManifest(paths, declaration: declaration)
        let content = SelectedContent(manifest: manifest, selection: PackSelection(packs: ["voices"], profile: DeviceProfile(values: ["language": ["fr"]])))
        let view = manifest.selecting(content)
        #expect(view.files.map(\.path) == ["ContentInfo.plist", "Contents/Art/t.bin", "Contents/Voices/a.ogg", "Contents/core.txt"])
        #expect(view.directories == ["Contents", "Contents/Art", "Contents/Voices"])
        #expect(view.uncompressedSize == 40)
        #expect(view.entryCount == 7)
        #expect(view.files.map(\.dataOffset) == content.files.map { manifest.files[$0].dataOffset })
    }

    @Test("any selection installs each install path once, and one option of every group")
    func selectionProperties() async {
        let values = Gen.element(of: ["de", "fr", "en", "pt", "pt-BR", "ja"]).map { $0! }
        let group = Gen.element(of: ["Contents/A", "Contents/B", "Contents/C/D"]).map { $0! }
        let entry = zip(group, values, Gen.bool, Gen.int(in: 0...2))
        await propertyCheck(input: entry.array(of: 1...12), values.array(of: 0...3)) { entries, preferred in
            var paths = Set(["ContentInfo.plist"])
            for (folder, value, tagged, file) in entries {
                paths.insert(tagged ? "\(folder)#language=\(value)/f\(file)" : "\(folder)/f\(file)")
            }
            let manifest = selectionManifest(Array(paths), declaration: nil)
            let content = SelectedContent(manifest: manifest, selection: PackSelection(profile: DeviceProfile(values: ["language": preferred])))
            let installPaths = content.files.map { content.installPath(of: $0, in: manifest) }
            #expect(Set(installPaths).count == installPaths.count)
            for (key, chosen) in content.chosen {
                // Every selected file below the group comes from the chosen option.
                let options = Set(content.files.map { manifest.files[$0].path }.filter { $0.hasPrefix(key + "/") || $0.hasPrefix(key + "#") }
                    .map { $0.hasPrefix(key + "#") ? String($0.dropFirst(key.count + "#language=".count).prefix { $0 != "/" }).lowercased() : "" })
                #expect(options == [chosen ?? ""])
                if let first = preferred.first, manifest.files.contains(where: { $0.path.hasPrefix("\(key)#language=\(first)/") }) {
                    #expect(chosen == first.lowercased())
                }
            }
        }
    }
}
