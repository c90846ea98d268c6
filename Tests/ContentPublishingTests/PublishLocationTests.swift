@testable import ContentPublishing
import Foundation
import Testing

/// The pure parts of publishing: `s3://` locations and their request URLs, credentials as the AWS CLI finds them,
/// and the fields read from S3's XML.
@Suite("Publish: locations, credentials, XML")
struct PublishLocationTests {
    @Test func pathStyleURLsAreCanonicalForSigV4() throws {
        let location = try ObjectStoreLocation("s3://bucket/a/b/", endpoint: "http://127.0.0.1:9000/", region: "auto", environment: [:])
        #expect(location.prefix == "a/b")
        #expect(location.region == "auto")
        #expect(location.url("archives/x y.tar.zst") == "http://127.0.0.1:9000/bucket/a/b/archives/x%20y.tar.zst")
        #expect(location.url("k", query: [("uploadId", "u/1+2"), ("partNumber", "3")])
            == "http://127.0.0.1:9000/bucket/a/b/k?partNumber=3&uploadId=u%2F1%2B2")
        #expect(location.url("k", query: [("uploads", "")]) == "http://127.0.0.1:9000/bucket/a/b/k?uploads=")
        #expect(location.url("", query: [("prefix", "a/b/archives/"), ("list-type", "2")], bucketOnly: true)
            == "http://127.0.0.1:9000/bucket?list-type=2&prefix=a%2Fb%2Farchives%2F")
        #expect(location.displayName("catalog.json") == "s3://bucket/a/b/catalog.json")
    }

    @Test func awsDefaultsAreVirtualHosted() throws {
        let location = try ObjectStoreLocation("s3://bucket", environment: ["AWS_REGION": "eu-west-1"])
        #expect(location.url("catalog.json") == "https://bucket.s3.eu-west-1.amazonaws.com/catalog.json")
        #expect(location.serverName == "https://s3.eu-west-1.amazonaws.com")
        let fromEnvironment = try ObjectStoreLocation("s3://bkt/p", environment: ["AWS_ENDPOINT_URL_S3": "https://r2.example"])
        #expect(fromEnvironment.url("k") == "https://r2.example/bkt/p/k")
    }

    @Test func badLocationsAreRefused() {
        #expect(throws: PublishError.self) { try ObjectStoreLocation("https://bucket/p", environment: [:]) }
        #expect(throws: PublishError.self) { try ObjectStoreLocation("s3:///p", environment: [:]) }
        #expect(throws: PublishError.self) { try ObjectStoreLocation("s3://bkt/p/../q", environment: [:]) }
        #expect(throws: PublishError.self) { try ObjectStoreLocation("s3://bkt/p", endpoint: "ftp://x", environment: [:]) }
    }

    /// A bucket is a path segment of every request: `.`, `..` or anything outside S3's naming rules would send a
    /// request elsewhere than the message says.
    @Test(arguments: [
        "..", ".", "...", "../x", "a..b", "b", "ab", "Bucket", "my_bucket", "-bucket", "bucket-", ".bucket", "bucket.",
        "192.168.1.1", "127.0.0.1", "bu cket", "bucket%2f", "b\u{0}x", String(repeating: "a", count: 64), "bücket",
    ])
    func badBucketsAreRefused(_ bucket: String) {
        let error = #expect(throws: PublishError.self) { try ObjectStoreLocation("s3://\(bucket)/p", endpoint: "http://127.0.0.1:9", environment: [:]) }
        #expect(error?.message.contains("names no valid bucket") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: ["iap", "bucket", "my-bucket", "my.bucket.example", "a1b", "1bucket", String(repeating: "a", count: 63), "1.2.3.4x"])
    func goodBucketsAreAccepted(_ bucket: String) throws {
        let location = try ObjectStoreLocation("s3://\(bucket)/p", endpoint: "http://127.0.0.1:9", environment: [:])
        #expect(location.url("k") == "http://127.0.0.1:9/\(bucket)/p/k")
    }

    /// S3's XML is read by a parser: entities decoded, namespaces ignored, malformed bodies refused.
    @Test func s3XMLIsParsedNotScanned() throws {
        let list = Data(#"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>true</IsTruncated><NextContinuationToken>t&amp;1</NextContinuationToken><Contents><Key>p/archives/a &amp; b&lt;c&gt;</Key><LastModified>2024-05-01T10:00:00.000Z</LastModified><Size>42</Size></Contents></ListBucketResult>"#.utf8)
        let page = try ListPage.parse(list).get()
        #expect(page.isTruncated)
        #expect(page.nextToken == "t&1")
        #expect(page.entries.map(\.key) == ["p/archives/a & b<c>"])
        #expect(page.entries.first?.size == 42)
        #expect(page.entries.first?.lastModified == Date(timeIntervalSince1970: 1_714_557_600))
        // A Key that only looks like one inside a comment or an attribute is not one.
        let hidden = Data(#"<ListBucketResult><!-- <Contents><Key>other/secret</Key></Contents> --><Name k="&lt;Key&gt;x&lt;/Key&gt;">b</Name></ListBucketResult>"#.utf8)
        #expect(try ListPage.parse(hidden).get().entries.isEmpty)
        for bad in ["", "<a>", "<a></b>", "<a/><b/>", "<a>&unknown;</a>", "plain text", #"<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>"#] {
            #expect(throws: S3XML.ParseFailure.self, "\(bad)") { try S3XML.parse(Data(bad.utf8)).get() }
        }
        let error = ObjectResponse(status: 403, headers: [:], body: Data("<Error><Code>AccessDenied</Code><Message>No &amp; no</Message></Error>".utf8))
        #expect(error.errorSummary == "HTTP 403 AccessDenied: No & no")
        #expect(ObjectResponse(status: 500, headers: [:], body: Data("<Error><Code>X</Code>".utf8)).errorSummary == "HTTP 500")
        #expect(ObjectResponse(status: 502, headers: [:], body: Data("<html>bad gateway</html>".utf8)).errorSummary == "HTTP 502")
        #expect(S3XML.error(in: Data("<Error><Code>SlowDown</Code></Error>".utf8))! == ("SlowDown", nil))
    }

    @Test func credentialsComeFromTheEnvironmentThenTheProfile() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_SESSION_TOKEN": "T"]
        #expect(try ObjectStoreCredentials.resolve(environment: environment)
            == ObjectStoreCredentials(accessKeyID: "AK", secretAccessKey: "SK", sessionToken: "T"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("credentials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
            [default]
            aws_access_key_id = D
            aws_secret_access_key = DS
            # a comment
            [publisher]
            aws_access_key_id=P
            aws_secret_access_key = PS
            aws_session_token = PT
            """.utf8).write(to: file)
        let profile = ["AWS_SHARED_CREDENTIALS_FILE": file.path, "AWS_PROFILE": "publisher"]
        #expect(try ObjectStoreCredentials.resolve(environment: profile)
            == ObjectStoreCredentials(accessKeyID: "P", secretAccessKey: "PS", sessionToken: "PT"))
        #expect(try ObjectStoreCredentials.resolve(environment: ["AWS_SHARED_CREDENTIALS_FILE": file.path]).accessKeyID == "D")
        #expect(throws: PublishError.self) {
            try ObjectStoreCredentials.resolve(environment: ["AWS_SHARED_CREDENTIALS_FILE": file.path, "AWS_PROFILE": "none"])
        }
        #expect(throws: PublishError.self) { try ObjectStoreCredentials.resolve(environment: ["AWS_ACCESS_KEY_ID": "AK", "HOME": "/nonexistent"]) }
    }
}
