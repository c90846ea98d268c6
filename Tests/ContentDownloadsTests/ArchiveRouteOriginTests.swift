import Testing

@testable import ContentDownloads

/// The key a preferred mirror is remembered by: scheme, host and port, lowercased; IDNA hosts stay in `xn--` form.
@Suite struct ArchiveRouteOriginTests {
    @Test func originIsSchemeHostAndPort() {
        #expect(ArchiveRoute.origin(of: "HTTP://Mirror.Example.COM:8080/archives/a.tar.zst?x=1") == "http://mirror.example.com:8080")
        #expect(ArchiveRoute.origin(of: "https://cdn.example.com/a") == "https://cdn.example.com")
        #expect(ArchiveRoute.origin(of: "http://127.0.0.1:49152/archives/a") == "http://127.0.0.1:49152")
        #expect(ArchiveRoute.origin(of: "http://[::1]:8080/a") == "http://[::1]:8080")
        #expect(ArchiveRoute.origin(of: "https://xn--bcher-kva.example/a") == "https://xn--bcher-kva.example")
        #expect(ArchiveRoute.origin(of: "archives/a.tar.zst") == nil)
    }
}
