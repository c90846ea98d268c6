import ContentDelivery
import Foundation
import Testing

/// `serve --token-key`: archives need a purchaser token, the catalog stays public.
@Suite struct ServeTokenTests {
    @Test func archivesNeedValidUnexpiredTokens() async throws {
        let folder = try HostedFolder(size: 2048)
        defer { folder.remove() }
        let key = URLTokenKey.generate()
        try await withLiveServer(root: folder.site, tokenKey: key) { base in
            let archive = URL(string: base.absoluteString + folder.archivePath)!
            let signer = URLTokenSigner(key: key)

            let missing = try await curl(archive.absoluteString)
            #expect(missing.status == 403)

            let valid = signer.sign(url: archive, product: "com.example.levels", expiresIn: 300)
            let ok = try await curl(valid.absoluteString)
            #expect(ok.status == 200)
            #expect(ok.body == folder.archiveBytes)
            let ranged = try await curl(valid.absoluteString, ["-H", "Range: bytes=0-99"])
            #expect(ranged.status == 206)
            #expect(ranged.body == folder.archiveBytes.prefix(100))

            // Forged: another key, another product (same token), a tampered token.
            let otherKey = URLTokenSigner(key: .generate()).sign(url: archive, product: "com.example.levels", expiresIn: 300)
            #expect(try await curl(otherKey.absoluteString).status == 403)
            let otherProduct = valid.absoluteString.replacingOccurrences(
                of: "product=com.example.levels", with: "product=com.example.other")
            #expect(try await curl(otherProduct).status == 403)
            let tamperedPath = valid.absoluteString.replacingOccurrences(of: folder.sha256, with: String(repeating: "a", count: 64))
            #expect(try await curl(tamperedPath).status == 403)

            // Expired: signed in the past (replay after expiry).
            let expired = signer.sign(
                url: archive, product: "com.example.levels", expiresIn: 60, now: Date().addingTimeInterval(-3600))
            let gone = try await curl(expired.absoluteString)
            #expect(gone.status == 410)
            #expect(gone.body != folder.archiveBytes)

            // The catalog and its signature stay public.
            #expect(try await curl(base.absoluteString + "catalog.json").status == 200)
        }
    }

    @Test func publishedManifestsNeedATokenAndAreImmutable() async throws {
        let folder = try HostedFolder(size: 512)
        defer { folder.remove() }
        let manifests = folder.site.appendingPathComponent("manifests", isDirectory: true)
        try FileManager.default.createDirectory(at: manifests, withIntermediateDirectories: true)
        let name = "manifests/\(String(repeating: "b", count: 64)).manifest.json"
        try Data("{\"files\": []}\n".utf8).write(to: folder.site.appendingPathComponent(name))
        let key = URLTokenKey.generate()
        try await withLiveServer(root: folder.site, tokenKey: key) { base in
            let url = URL(string: base.absoluteString + name)!
            #expect(try await curl(url.absoluteString).status == 403)
            let signed = URLTokenSigner(key: key).sign(url: url, product: "com.example.levels", expiresIn: 60)
            let ok = try await curl(signed.absoluteString)
            #expect(ok.status == 200)
            #expect(ok.headers["cache-control"]?.contains("immutable") == true, "\(ok.headers)")
        }
    }

    @Test func symlinkIntoArchivesStillNeedsToken() async throws {
        let folder = try HostedFolder(size: 512)
        defer { folder.remove() }
        try FileManager.default.createSymbolicLink(
            atPath: folder.site.appendingPathComponent("alias.bin").path,
            withDestinationPath: folder.site.appendingPathComponent(folder.archivePath).path)
        let key = URLTokenKey.generate()
        try await withLiveServer(root: folder.site, tokenKey: key) { base in
            let alias = try await curl(base.absoluteString + "alias.bin")
            #expect(alias.status == 403)
            #expect(alias.body != folder.archiveBytes)
            let signed = URLTokenSigner(key: key).sign(
                url: URL(string: base.absoluteString + "alias.bin")!, product: "com.example.levels", expiresIn: 60)
            let ok = try await curl(signed.absoluteString)
            #expect(ok.status == 200)
            #expect(ok.body == folder.archiveBytes)
            #expect(ok.headers["cache-control"] == "public, max-age=31536000, immutable")
        }
    }
}
