import ContentDelivery
@testable import ContentPublishing
import ContentPackaging
import Crypto
import Foundation
import Synchronization
import Testing
import TestSupport

/// `prune` against a lying object store: a loopback server answers ListObjectsV2 with keys outside the prefix, dot
/// segments, the live catalog's own names, control characters, percent-encoded dot segments, endless or broken
/// pagination, malformed XML and error documents. Each case asserts the refusal names the problem, and that the
/// server received no DELETE but those of objects that are the pruner's to delete (in a refused case: none at all).
@Suite("Hostile object store: prune refuses lying listings")
struct HostileObjectStoreTests {
    /// One lie.
    struct Case: Sendable, CustomTestStringConvertible {
        /// What the lie is.
        var name: String
        /// The folder whose listing lies (`archives/`, …); the others list nothing.
        var folder = "archives/"
        /// The listing page answered for `token` (`nil`: the first page), status and body.
        var page: @Sendable (_ token: String?) -> (Int, Data)
        /// What the refusal must say; `nil`: no refusal, only the DELETEs in `allowedDeletes`.
        var refusal: String?
        /// The paths a DELETE may go to.
        var allowedDeletes: Set<String> = []
        /// A tighter page bound for the client (the endless-pagination cases).
        var maximumListPages = 10_000
        /// A tighter object bound for the client.
        var maximumListedObjects = 1_000_000

        /// The case's name.
        var testDescription: String { name }
    }

    /// The live catalog the server serves: one product whose archive and manifest it names.
    static let liveCatalog: Data = {
        let product = CatalogProduct(
            productID: "com.example.live", contentVersion: ContentVersion("1.0")!, path: "archives/live.tar.zst",
            length: 10, sha256: String(repeating: "a", count: 64), uncompressedSize: 10, entryCount: 1)
        var catalog = Catalog(catalogVersion: 7, products: [product])
        catalog.products[0].manifest = ManifestReference(path: "manifests/live.manifest", length: 5, sha256: String(repeating: "b", count: 64))
        return try! Catalog.encoder.encode(catalog)
    }()

    /// The SHA-256 of ``liveCatalog``, lowercase hex.
    static let liveSHA = SHA256.hash(data: liveCatalog).map { String(format: "%02x", $0) }.joined()

    /// A ListObjectsV2 page of `keys` (written as given: a test may put character references in them).
    static func page(_ keys: [String], truncated: Bool = false, token: String? = nil, isTruncated: String? = nil) -> Data {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#
        xml += "<Name>bkt</Name><KeyCount>\(keys.count)</KeyCount><MaxKeys>1000</MaxKeys>"
        xml += "<IsTruncated>\(isTruncated ?? String(truncated))</IsTruncated>"
        if let token { xml += "<NextContinuationToken>\(token)</NextContinuationToken>" }
        for key in keys {
            xml += "<Contents><Key>\(key)</Key><LastModified>2020-01-01T00:00:00.000Z</LastModified><Size>10</Size></Contents>"
        }
        return Data((xml + "</ListBucketResult>").utf8)
    }

    /// A case whose one listing page holds `keys`.
    static func keys(_ name: String, _ keys: [String], folder: String = "archives/", refusal: String) -> Case {
        Case(name: name, folder: folder, page: { _ in (200, page(keys)) }, refusal: refusal)
    }

    /// A case answering `body` with `status` to the listing.
    static func body(_ name: String, _ body: String, status: Int = 200, refusal: String) -> Case {
        Case(name: name, page: { _ in (status, Data(body.utf8)) }, refusal: refusal)
    }

    /// Every lie, and two honest listings that show the server and the pruner delete what they should.
    static let cases: [Case] = [
        keys("key outside the prefix", ["other/secret"], refusal: #"named the key "other/secret", which is not under "store/archives/""#),
        keys("sibling folder sharing the name's start", ["store/archives-old/x"], refusal: "which is not under"),
        keys("another prefix's archive", ["stores/archives/x"], refusal: "which is not under"),
        keys("dot-dot escaping the bucket prefix", ["store/archives/../../other/secret"], refusal: "has a '..' segment"),
        keys("dot-dot to the live catalog", ["store/archives/../catalog.json"], refusal: "has a '..' segment"),
        keys("dot segment", ["store/archives/./x.tar.zst"], refusal: "has a '.' segment"),
        keys("empty segment", ["store/archives//x.tar.zst"], refusal: "has an empty segment"),
        keys("trailing slash (empty last segment)", ["store/archives/x/"], refusal: "has an empty segment"),
        keys("the folder itself", ["store/archives/"], refusal: "is the folder itself"),
        keys("the live catalog.json", ["store/catalog.json"], refusal: #"named the key "store/catalog.json""#),
        keys("the live catalog.json.sig", ["store/catalog.json.sig"], refusal: #"named the key "store/catalog.json.sig""#),
        keys("catalog.json in the signatures listing", ["store/catalog.json"], folder: "signatures/", refusal: "is not under \"store/signatures/\""),
        keys("history listing naming the live catalog", ["store/catalogs/../catalog.json"], folder: "catalogs/", refusal: "has a '..' segment"),
        keys("probes listing naming catalog.json.sig", ["store/probes/../catalog.json.sig"], folder: "probes/", refusal: "has a '..' segment"),
        keys("absolute key", ["/store/archives/x.tar.zst"], refusal: "which is not under"),
        keys("key at the bucket's root", ["catalog.json"], refusal: "which is not under"),
        keys("NUL character reference", ["store/archives/a&#0;b"], refusal: "not well-formed XML"),
        keys("control character reference (SOH)", ["store/archives/a&#1;b"], refusal: "not well-formed XML"),
        keys("newline in a key", ["store/archives/a&#10;b"], refusal: "holds a control character"),
        keys("carriage return in a key", ["store/archives/a&#13;b"], refusal: "holds a control character"),
        keys("tab in a key", ["store/archives/a\tb"], refusal: "holds a control character"),
        keys("DEL in a key", ["store/archives/a\u{7F}b"], refusal: "holds a control character"),
        keys("C1 control (NEL) in a key", ["store/archives/a\u{85}b"], refusal: "holds a control character"),
        keys("percent-encoded dot-dot segments", ["store/archives/%2e%2e/%2e%2e/other/secret"], refusal: "has a '%2e%2e' segment"),
        keys("percent-encoded dot-dot, upper case", ["store/archives/%2E%2E"], refusal: "has a '%2E%2E' segment"),
        keys("mixed dot and percent-encoded dot", ["store/archives/.%2e/catalog.json"], refusal: "has a '.%2e' segment"),
        keys("percent-encoded dot", ["store/archives/%2e/x"], refusal: "has a '%2e' segment"),
        keys("double percent-encoded dot-dot", ["store/archives/%252e%252e/catalog.json"], refusal: "segment"),
        keys("percent-encoded slash and dot-dot", ["store/archives/..%2fcatalog.json"], refusal: "percent-decodes to a path"),
        keys("backslash dot-dot", ["store/archives/..\\..\\catalog.json"], refusal: "holds a backslash"),
        Case(
            name: "lie on page 2 after a page of deletable objects",
            page: { token in
                token == nil ? (200, page(["store/archives/old.tar.zst"], truncated: true, token: "t2")) : (200, page(["other/secret"]))
            },
            refusal: #"named the key "other/secret""#),
        Case(
            name: "repeated continuation token",
            page: { _ in (200, page(["store/archives/old.tar.zst"], truncated: true, token: "same")) },
            refusal: #"repeats the continuation token "same" at page 2"#),
        Case(
            name: "token cycle of two",
            page: { token in (200, page([], truncated: true, token: token == "a" ? "b" : "a")) },
            refusal: "repeats the continuation token"),
        Case(
            name: "truncated page without a token",
            page: { _ in (200, page(["store/archives/old.tar.zst"], truncated: true)) },
            refusal: "gives no NextContinuationToken"),
        Case(
            name: "truncated page with an empty token",
            page: { _ in (200, page(["store/archives/old.tar.zst"], truncated: true, token: "")) },
            refusal: "gives no NextContinuationToken"),
        Case(
            name: "endless pages, each a new token",
            page: { token in
                let n = Int(token ?? "0")! + 1
                return (200, page(["store/archives/old-\(n).tar.zst"], truncated: true, token: String(n)))
            },
            refusal: "ran past 40 pages (40 objects)", maximumListPages: 40),
        Case(
            name: "more objects than the bound",
            page: { _ in (200, page((0..<150).map { "store/archives/old-\($0).tar.zst" })) },
            refusal: "holds more than 100 objects", maximumListedObjects: 100),
        Case(
            name: "IsTruncated neither true nor false",
            page: { _ in (200, page(["store/archives/old.tar.zst"], isTruncated: "yes")) },
            refusal: #"<IsTruncated> is "yes""#),
        body("malformed XML (unclosed element)", "<ListBucketResult><Contents><Key>store/archives/x</Contents></ListBucketResult>", refusal: "not well-formed XML"),
        body("truncated XML", "<ListBucketResult><Contents><Key>store/archives/x</Key>", refusal: "not well-formed XML"),
        body("text after the root", "<ListBucketResult></ListBucketResult><Contents><Key>other/secret</Key></Contents>", refusal: "not well-formed XML"),
        body("not XML at all", "Key: other/secret\n", refusal: "not well-formed XML"),
        body("empty body", "", refusal: "the body is empty"),
        body("XML declaration only", #"<?xml version="1.0"?>"#, refusal: "is not a ListObjectsV2 answer"),
        body(
            "S3 error document with 200",
            "<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>",
            refusal: "is an S3 error document (InternalError: We encountered an internal error"),
        body("another document's root", "<ListAllMyBucketsResult><Buckets/></ListAllMyBucketsResult>", refusal: "the root element is <ListAllMyBucketsResult>"),
        body(
            "document type with entities",
            #"<?xml version="1.0"?><!DOCTYPE l [<!ENTITY k "other/secret">]><ListBucketResult><Contents><Key>&k;</Key></Contents></ListBucketResult>"#,
            refusal: "declares a document type"),
        body("entry without a key", "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>", refusal: "has no <Key>"),
        body("keys hidden in an unrelated element", "<ListBucketResult><Key>other/secret</Key><Contents><Key>", refusal: "not well-formed XML"),
        // Honest listings: the server works, and the pruner deletes exactly what is not needed.
        Case(
            name: "honest listing with the live catalog's own objects",
            page: { _ in (200, page(["store/archives/live.tar.zst", "store/archives/old.tar.zst"])) },
            refusal: nil, allowedDeletes: ["/bkt/store/archives/old.tar.zst"]),
        Case(
            name: "live signature and history listed: kept",
            folder: "signatures/",
            page: { _ in (200, page(["store/signatures/\(liveSHA).sig", "store/signatures/\(String(repeating: "0", count: 64)).sig"])) },
            refusal: nil, allowedDeletes: ["/bkt/store/signatures/\(String(repeating: "0", count: 64)).sig"]),
    ]

    /// A server for `lie`: the live catalog at `store/catalog.json`, the lie in the listing of its folder, empty
    /// listings of the other folders, 404 for any other object, 204 for DELETE.
    static func server(for lie: Case) throws -> HostileObjectStoreServer {
        let catalog = liveCatalog
        return try HostileObjectStoreServer { request in
            switch (request.method, request.path) {
            case ("GET", "/bkt/store/\(Catalog.fileName)"):
                return .answer(200, catalog)
            case ("GET", "/bkt") where request.query["list-type"] == "2":
                let prefix = request.query["prefix"] ?? ""
                if prefix == "store/catalogs/", lie.folder != "catalogs/" {
                    return .answer(200, page(["store/catalogs/\(liveSHA).json"]))
                }
                guard prefix == "store/" + lie.folder else { return .answer(200, page([])) }
                let (status, body) = lie.page(request.query["continuation-token"])
                return .answer(status, body)
            case ("GET", "/bkt/store/catalogs/\(liveSHA).json"):
                return .answer(200, catalog)
            case ("DELETE", _):
                return .answer(204, Data())
            default:
                return .answer(404, Data("<Error><Code>NoSuchKey</Code></Error>".utf8))
            }
        }
    }

    /// A client of `s3://bkt/store` at `server`.
    static func client(_ server: HostileObjectStoreServer, _ lie: Case) throws -> ObjectStoreClient {
        let location = try ObjectStoreLocation("s3://bkt/store", endpoint: server.endpoint, region: "us-east-1", environment: [:])
        let client = ObjectStoreClient(location: location, credentials: ObjectStoreCredentials(accessKeyID: "a", secretAccessKey: "s"))
        client.connectTimeout = 2
        client.stallTimeout = 2
        client.maximumListPages = lie.maximumListPages
        client.maximumListedObjects = lie.maximumListedObjects
        return client
    }

    @Test("a lying listing is refused and nothing not ours is deleted", arguments: cases)
    func lyingListing(_ lie: Case) throws {
        let server = try Self.server(for: lie)
        defer { server.stop() }
        var pruner = CatalogPruner(client: try Self.client(server, lie), keep: 1)
        pruner.minimumAge = 0
        let printed = Mutex<[String]>([])
        pruner.onDelete = { object in printed.withLock { $0.append("s3://bkt/\(object.key)") } }
        do {
            let summary = try pruner.prune()
            #expect(lie.refusal == nil, "not refused; deleted \(server.deletes)")
            #expect(summary.deletedObjects == lie.allowedDeletes.count)
            #expect(Set(printed.withLock { $0 }) == Set(lie.allowedDeletes.map { "s3://" + $0.dropFirst() }))
        } catch {
            let refusal = try #require(lie.refusal, "refused: \(error.message)")
            #expect(error.message.contains(refusal), "\(error.message)")
            #expect(error.message.contains("nothing was deleted"), "\(error.message)")
            #expect(error.message.contains(server.endpoint), "\(error.message)")
        }
        #expect(Set(server.deletes).isSubset(of: lie.allowedDeletes), "DELETE sent: \(server.deletes)")
        if lie.refusal != nil { #expect(server.deletes.isEmpty, "DELETE sent: \(server.deletes)") }
        // The endless cases stop at their bound, not after thousands of requests.
        #expect(server.requests.count <= max(lie.maximumListPages, 10) + 10, "\(server.requests.count) requests")
    }

    /// The count of lies (the report quotes it).
    @Test func corpusSize() {
        #expect(Self.cases.filter { $0.refusal != nil }.count >= 45)
    }

    /// The last check before each DELETE holds whatever the listing and the reference sets said.
    @Test func deletionGuardKeepsTheLiveCatalogsNames() throws {
        let location = try ObjectStoreLocation("s3://bkt/store", endpoint: "http://127.0.0.1:9", environment: [:])
        let liveSignature = Catalog.signaturePath(catalogSHA256: Self.liveSHA)
        let guardRail = CatalogPruner.DeletionGuard(
            protected: [Catalog.fileName, Catalog.signatureFileName, liveSignature, "archives/live.tar.zst"], keyPrefix: "store/")
        func object(_ name: String, key: String? = nil) -> ObjectStoreClient.ListedObject {
            .init(name: name, key: key ?? "store/" + name, length: 1, lastModified: nil)
        }
        for name in [Catalog.fileName, Catalog.signatureFileName, liveSignature, "archives/live.tar.zst"] {
            #expect(throws: PublishError.self, "\(name)") { try guardRail.check(object(name), location: location) }
        }
        #expect(throws: PublishError.self) { try guardRail.check(object("archives/x", key: "other/secret"), location: location) }
        #expect(throws: PublishError.self) { try guardRail.check(object("other/secret"), location: location) }
        #expect(throws: PublishError.self) { try guardRail.check(object("archives/../catalog.json"), location: location) }
        #expect(throws: PublishError.self) { try guardRail.check(object("archives/"), location: location) }
        try guardRail.check(object("archives/old.tar.zst"), location: location)
    }
}
