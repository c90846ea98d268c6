import ContentDelivery
import Foundation
import Testing

@Suite struct URLTokenTests {
    let key = URLTokenKey.generate()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let archive = URL(string: "https://cdn.example.com/store/archives/0123abcd.tar.zst")!

    /// The path and query a server would see for `url`.
    func request(_ url: URL) -> (path: String, query: [String: String]) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return (components.percentEncodedPath, query)
    }

    @Test func signedURLVerifies() {
        let signed = URLTokenSigner(key: key).sign(url: archive, product: "com.example.levels", expiresIn: 600, now: now)
        let (path, query) = request(signed)
        #expect(path == "/store/archives/0123abcd.tar.zst")
        #expect(query["product"] == "com.example.levels")
        #expect(query["expires"] == "1800000600")
        let token = query["token"] ?? ""
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
        #expect(URLTokenVerifier(key: key).verify(path: path, query: query, now: now) == .ok)
        #expect(URLToken.token(key: key, product: "com.example.levels", path: path, expires: 1_800_000_600) == token)
    }

    @Test func expiredAndReplayedAfterExpiryAre410() {
        let signed = URLTokenSigner(key: key).sign(url: archive, product: "p", expiresIn: 60, now: now)
        let (path, query) = request(signed)
        let verifier = URLTokenVerifier(key: key)
        #expect(verifier.verify(path: path, query: query, now: now.addingTimeInterval(59)) == .ok)
        #expect(verifier.verify(path: path, query: query, now: now.addingTimeInterval(60)) == .expired)
        #expect(verifier.verify(path: path, query: query, now: now.addingTimeInterval(86_400)) == .expired)
        #expect(URLTokenVerdict.expired.httpStatus == 410)
    }

    @Test func forgeriesAre403() {
        let signed = URLTokenSigner(key: key).sign(url: archive, product: "p", expiresIn: 600, now: now)
        let (path, query) = request(signed)
        let verifier = URLTokenVerifier(key: key)

        var flipped = query
        var token = Array(query["token"]!)
        token[3] = token[3] == "A" ? "B" : "A"
        flipped["token"] = String(token)
        #expect(verifier.verify(path: path, query: flipped, now: now) == .forged)

        var otherProduct = query
        otherProduct["product"] = "q"
        #expect(verifier.verify(path: path, query: otherProduct, now: now) == .forged)

        #expect(verifier.verify(path: "/store/archives/ffff.tar.zst", query: query, now: now) == .forged)

        var extended = query
        extended["expires"] = String(Int(query["expires"]!)! + 3600)
        #expect(verifier.verify(path: path, query: extended, now: now.addingTimeInterval(1000)) == .forged)

        #expect(URLTokenVerifier(key: URLTokenKey.generate()).verify(path: path, query: query, now: now) == .forged)
        #expect(URLTokenVerdict.forged.httpStatus == 403)
    }

    @Test func missingParametersAre403Missing() {
        let verifier = URLTokenVerifier(key: key)
        #expect(verifier.verify(path: "/a", query: [:], now: now) == .missing)
        #expect(verifier.verify(path: "/a", query: ["product": "p", "expires": "1"], now: now) == .missing)
        #expect(verifier.verify(path: "/a", query: ["product": "p", "token": "abc"], now: now) == .missing)
    }

    @Test func tokenKeyFileRoundTrips() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let url = fixture.root.appendingPathComponent("token.key")
        try key.write(to: url)
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let loaded = try URLTokenKey.read(from: url)
        #expect(loaded.rawRepresentation == key.rawRepresentation)
        #expect(loaded.rawRepresentation.count == 32)
        #expect(throws: KeyFileError.alreadyExists(path: url.path)) { try URLTokenKey.generate().write(to: url) }
    }
}
