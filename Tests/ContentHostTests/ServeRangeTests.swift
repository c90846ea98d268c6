import ContentDelivery
import Foundation
import Testing

/// Range, validator and cache-header behaviour of `serve`, checked with libcurl (curl CLI) on loopback.
@Suite struct ServeRangeTests {
    @Test func singleRangesAreExact() async throws {
        let folder = try HostedFolder(size: 100_000)
        defer { folder.remove() }
        let bytes = folder.archiveBytes
        let length = bytes.count
        try await withLiveServer(root: folder.site) { base in
            let url = base.absoluteString + folder.archivePath
            let cases: [(String, Range<Int>)] = [
                ("0-0", 0..<1),
                ("\(length - 1)-\(length - 1)", (length - 1)..<length),
                ("-500", (length - 500)..<length),
                ("99000-", 99_000..<length),
                ("1000-1999", 1000..<2000),
                ("90000-200000", 90_000..<length),  // end clamped
                ("-999999", 0..<length),  // suffix longer than the file
            ]
            for (range, expected) in cases {
                let response = try await curl(url, ["-H", "Range: bytes=\(range)"])
                #expect(response.status == 206, "bytes=\(range)")
                #expect(response.body == bytes.subdata(in: expected), "bytes=\(range)")
                #expect(response.headers["content-length"] == "\(expected.count)", "bytes=\(range)")
                #expect(
                    response.headers["content-range"]
                        == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(length)", "bytes=\(range)")
                #expect(response.headers["accept-ranges"] == "bytes")
                #expect(response.headers["etag"] == "\"\(folder.sha256)\"")
            }
        }
    }

    @Test func unsatisfiableRangeIs416WithLength() async throws {
        let folder = try HostedFolder(size: 5000)
        defer { folder.remove() }
        try await withLiveServer(root: folder.site) { base in
            let url = base.absoluteString + folder.archivePath
            for range in ["5000-", "5000-6000", "-0", "999999-"] {
                let response = try await curl(url, ["-H", "Range: bytes=\(range)"])
                #expect(response.status == 416, "bytes=\(range)")
                #expect(response.headers["content-range"] == "bytes */5000", "bytes=\(range)")
                #expect(response.body.isEmpty)
            }
        }
    }

    @Test func multipleOrMalformedRangesGetFull200() async throws {
        let folder = try HostedFolder(size: 5000)
        defer { folder.remove() }
        try await withLiveServer(root: folder.site) { base in
            let url = base.absoluteString + folder.archivePath
            for header in ["bytes=0-1,3-4", "bytes=5-2", "bytes=abc", "items=0-1"] {
                let response = try await curl(url, ["-H", "Range: \(header)"])
                #expect(response.status == 200, "\(header)")
                #expect(response.body == folder.archiveBytes, "\(header)")
                #expect(response.headers["content-range"] == nil)
                #expect(response.headers["content-length"] == "5000")
            }
        }
    }

    @Test func ifRangeMatchGives206MismatchGives200() async throws {
        let folder = try HostedFolder(size: 5000)
        defer { folder.remove() }
        try await withLiveServer(root: folder.site) { base in
            let url = base.absoluteString + folder.archivePath
            let etag = "\"\(folder.sha256)\""
            let match = try await curl(url, ["-H", "Range: bytes=100-", "-H", "If-Range: \(etag)"])
            #expect(match.status == 206)
            #expect(match.body == folder.archiveBytes.subdata(in: 100..<5000))
            let mismatch = try await curl(url, ["-H", "Range: bytes=100-", "-H", "If-Range: \"stale\""])
            #expect(mismatch.status == 200)
            #expect(mismatch.body == folder.archiveBytes)
            let weak = try await curl(url, ["-H", "Range: bytes=100-", "-H", "If-Range: W/\(etag)"])
            #expect(weak.status == 200)
            let notModified = try await curl(url, ["-H", "If-None-Match: \(etag)"])
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
        }
    }

    @Test func headHasHeadersWithoutBody() async throws {
        let folder = try HostedFolder(size: 7777)
        defer { folder.remove() }
        try await withLiveServer(root: folder.site) { base in
            let url = base.absoluteString + folder.archivePath
            let head = try await curl(url, ["-I"])
            #expect(head.status == 200)
            #expect(head.headers["content-length"] == "7777")
            #expect(head.headers["accept-ranges"] == "bytes")
            #expect(head.headers["etag"] == "\"\(folder.sha256)\"")
            #expect(head.bodyBytesReceived == 0)
            let rangedHead = try await curl(url, ["-I", "-H", "Range: bytes=10-19"])
            #expect(rangedHead.status == 206)
            #expect(rangedHead.headers["content-length"] == "10")
            #expect(rangedHead.headers["content-range"] == "bytes 10-19/7777")
            #expect(rangedHead.bodyBytesReceived == 0)
            let get = try await curl(url)
            #expect(get.bodyBytesReceived == 7777)
        }
    }

    @Test func etagIsStableAndCacheControlFitsTheFile() async throws {
        let folder = try HostedFolder(size: 1000)
        defer { folder.remove() }
        try await withLiveServer(root: folder.site) { base in
            let archive = try await curl(base.absoluteString + folder.archivePath)
            let again = try await curl(base.absoluteString + folder.archivePath, ["-H", "Range: bytes=0-9"])
            #expect(archive.headers["etag"] == again.headers["etag"])
            #expect(archive.headers["cache-control"] == "public, max-age=31536000, immutable")
            #expect(archive.headers["last-modified"]?.hasSuffix(" GMT") == true)

            let catalog = try await curl(base.absoluteString + "catalog.json")
            #expect(catalog.status == 200)
            #expect(catalog.headers["cache-control"] == "no-cache")
            #expect(catalog.headers["content-type"] == "application/json")
            let onDisk = try Data(contentsOf: folder.site.appendingPathComponent("catalog.json"))
            #expect(catalog.body == onDisk)
            let catalogAgain = try await curl(base.absoluteString + "catalog.json", ["-I"])
            let etag = try unwrap(catalog.headers["etag"])
            #expect(catalogAgain.headers["etag"] == etag)
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
        }
    }

    @Test func traversalAndHiddenFilesAreRefused() async throws {
        let folder = try HostedFolder(size: 100)
        defer { folder.remove() }
        // A symlink inside the folder that leaves it, and a hidden temp file.
        try FileManager.default.createSymbolicLink(
            atPath: folder.site.appendingPathComponent("escape").path, withDestinationPath: "/etc")
        try Data("secret".utf8).write(to: folder.site.appendingPathComponent("archives/.tmp-x.tar.zst"))
        try await withLiveServer(root: folder.site) { base in
            let origin = "http://\(base.host!):\(base.port!)"
            let attempts = [
                "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/archives/..%2f..%2f..%2fetc/passwd",
                "/archives/%2E%2E/%2E%2E/etc/passwd", "/escape/passwd", "/archives/.tmp-x.tar.zst",
                "//etc/passwd", "/archives/%00", "/archives\\..\\catalog.json", "/archives/", "/",
            ]
            for path in attempts {
                let response = try await curl(origin + path, ["--path-as-is"])
                #expect([400, 404].contains(response.status), "\(path) → \(response.status)")
                #expect(!String(decoding: response.body, as: UTF8.self).contains("root:"), "\(path)")
                #expect(!String(decoding: response.body, as: UTF8.self).contains("secret"), "\(path)")
            }
            let post = try await curl(origin + "/catalog.json", ["-X", "POST"])
            #expect(post.status == 405)
            #expect(post.headers["allow"] == "GET, HEAD")
        }
    }
}
