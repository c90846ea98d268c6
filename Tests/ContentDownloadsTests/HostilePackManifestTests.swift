import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A signed catalog that names a manifest whose pack declaration or variant paths a client refuses — which
/// `validate` and `pack` never write, so the manifest is changed after packing — is refused before any archive
/// byte: the download fails with a message naming the manifest and the problem, and nginx never sees a request
/// for the archive.
@Suite("Hostile manifests: packs and variants")
struct HostilePackManifestTests {
    static let productID = "com.example.hostile.packs"

    /// How the changed manifest is published.
    enum Encoding { case compact, json }

    /// Packs a product with a prefetch pack, an essential voices pack and language variants, changes its manifest
    /// with `change` (then its JSON text with `edit`), publishes it under a new name in a catalog that names its
    /// SHA-256, and downloads with `language=de`. Returns the failed download's output.
    static func refusal(
        _ encoding: Encoding, _ change: (inout PackageManifest) -> Void, edit: (String) -> String = { $0 }
    ) async throws -> String {
        let fixture = try QueueFixture()
        let folder = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/hostile"), productID: productID,
            files: [
                "Contents/core.bin": PackageFixture.bytes(count: 64 << 10, seed: 1),
                "Contents/HiRes/textures.bin": PackageFixture.bytes(count: 64 << 10, seed: 2),
                "Contents/Voices#language=de/intro.ogg": PackageFixture.bytes(count: 64 << 10, seed: 3),
                "Contents/Voices#language=en/intro.ogg": PackageFixture.bytes(count: 64 << 10, seed: 4),
                "Contents/Voices#language=fr/intro.ogg": PackageFixture.bytes(count: 64 << 10, seed: 5),
            ],
            extraKeys: [
                "Packs": [
                    "hires": ["Policy": "prefetch", "Paths": ["Contents/HiRes"]],
                    "voices": ["Policy": "essential", "Paths": ["Contents/Voices"]],
                ],
                "Variants": ["language": ["Default": "en"]],
            ])
        var catalog = try fixture.publish([folder], chunked: true)
        let index = try #require(catalog.products.firstIndex { $0.productID == productID })
        let reference = try #require(catalog.products[index].manifest)
        var manifest = try PackageManifest.decode(Data(contentsOf: fixture.nginx.root.appendingPathComponent(reference.path)))
        change(&manifest)
        let bytes: Data
        switch encoding {
        case .compact: bytes = try manifest.compactEncoded()
        case .json: bytes = Data(edit(String(decoding: try manifest.encoded(), as: UTF8.self)).utf8)
        }
        let name = "hostile-\(UUID().uuidString).manifest"
        try bytes.write(to: fixture.nginx.root.appendingPathComponent(name))
        catalog.products[index].manifest = ManifestReference(path: name, length: Int64(bytes.count), sha256: sha256Hex(Array(bytes)))
        try catalog.encoded().write(to: fixture.nginx.root.appendingPathComponent("catalog.json"))

        let store = fixture.root.appendingPathComponent("store").path
        let run = try await iapcontentOffPool(["download", productID, "--catalog", fixture.catalogURL, "--store", store, "--select", "language=de"])
        #expect(run.status != 0, "\(run.output)")
        let requests = fixture.nginx.requests().map(\.request)
        #expect(requests.contains { $0.contains(name) }, "the manifest was fetched: \(requests)")
        #expect(!requests.contains { $0.contains(".tar.zst") }, "no archive request: \(requests)")
        #expect(try Store(root: URL(fileURLWithPath: store)).contentURL(forProductID: productID) == nil)
        #expect(run.output.contains("the manifest ") && run.output.contains("\(productID)-1.0.manifest"), "names the manifest: \(run.output)")
        return run.output
    }

    @Test func overlappingPacksAreRefused() async throws {
        let output = try await Self.refusal(.compact) { manifest in
            manifest.packs?.packs.append(PackDeclaration.Pack(id: "extra", policy: .onDemand, paths: ["Contents/HiRes/textures.bin"]))
        }
        #expect(output.contains("Contents/HiRes") && output.contains("packs may not overlap"), "\(output)")
    }

    @Test func aFallbackCycleIsRefused() async throws {
        let output = try await Self.refusal(.compact) { manifest in
            manifest.packs?.axes = [PackDeclaration.Axis(name: "language", defaultValue: "en", fallback: ["de": ["fr"], "fr": ["de"]])]
        }
        #expect(output.contains("Variants.language.Fallback") && output.contains("has a cycle"), "\(output)")
    }

    @Test func twoAxesOnOneFolderAreRefused() async throws {
        let output = try await Self.refusal(.json) { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/Voices#language=en/intro.ogg" }!
            manifest.files[index].path = "Contents/Voices#arch=x86_64/intro.ogg"
            manifest.directories = manifest.directories?.map { $0 == "Contents/Voices#language=en" ? "Contents/Voices#arch=x86_64" : $0 }.sorted()
        }
        #expect(output.contains("collides") && output.contains("Contents/Voices"), "\(output)")
    }

    @Test func aVariantFolderSpanningTwoPacksIsRefused() async throws {
        let output = try await Self.refusal(.compact) { manifest in
            let index = manifest.packs!.packs.firstIndex { $0.id == "voices" }!
            manifest.packs!.packs[index].paths = ["Contents/Voices/intro.ogg"]
        }
        #expect(output.contains("a variant may not select files outside its pack"), "\(output)")
    }

    @Test func anUnknownPolicyIsRefusedInWords() async throws {
        let output = try await Self.refusal(.json, { _ in }, edit: { $0.replacingOccurrences(of: "\"prefetch\"", with: "\"sideload\"") })
        #expect(output.contains("declares a download policy 'sideload' this client does not know") && output.contains("update iapcontent"), "\(output)")
        #expect(!output.contains("DecodingError") && !output.contains("codingPath"), "\(output)")
    }
    @Test("a variant folder named '..#axis=value' is refused and nothing is written outside the store")
    func aDotDotVariantIsRefused() async throws {
        let marker = "pwned-\(UUID().uuidString).txt"
        let output = try await Self.refusal(.json) { manifest in
            let index = manifest.files.firstIndex { $0.path == "Contents/Voices#language=de/intro.ogg" }!
            manifest.files[index].path = "Contents/..#language=de/..#texture=astc/\(marker)"
            manifest.directories = (manifest.directories ?? []).filter { $0 != "Contents/Voices#language=de" }
                + ["Contents/..#language=de", "Contents/..#language=de/..#texture=astc"]
            manifest.directories?.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            manifest.entryCount += 1
        }
        #expect(output.contains("'..' component"), "\(output)")
        let found = FileManager.default.enumerator(atPath: FileManager.default.temporaryDirectory.path)?
            .compactMap { $0 as? String }.filter { $0.hasSuffix(marker) } ?? []
        #expect(found.isEmpty, "written outside: \(found)")
    }

    @Test("a pack declared twice is refused in words, not a crash")
    func aPackDeclaredTwiceIsRefused() async throws {
        let output = try await Self.refusal(.compact) { manifest in
            manifest.packs?.packs.append(PackDeclaration.Pack(id: "hires", policy: .onDemand, paths: ["Contents/Other"]))
        }
        #expect(output.contains("Packs.hires") && output.contains("declared twice"), "\(output)")
        #expect(!output.contains("Fatal error"), "\(output)")
    }

    @Test("a pack declared as core is refused in words, not a crash")
    func aCorePackIsRefused() async throws {
        let output = try await Self.refusal(.compact) { manifest in
            manifest.packs?.packs.append(PackDeclaration.Pack(id: "core", policy: .onDemand, paths: ["Contents/Other"]))
        }
        #expect(output.contains("Packs.core") && output.contains("not a pack identifier"), "\(output)")
        #expect(!output.contains("Fatal error"), "\(output)")
    }

    @Test("a fallback chain of 40 000 steps (what fits in a manifest) is refused by its size, not by a stack overflow")
    func aDeepFallbackChainIsRefused() async throws {
        let output = try await Self.refusal(.compact) { manifest in
            var fallback: [String: [String]] = [:]
            for step in 0..<40_000 { fallback["v\(step)"] = ["v\(step + 1)"] }
            manifest.packs?.axes = [PackDeclaration.Axis(name: "language", defaultValue: "en", fallback: fallback)]
        }
        #expect(output.contains("Variants.language.Fallback") && output.contains("at most 256"), "\(output)")
    }
}
