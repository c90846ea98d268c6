import ContentDownloads
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
        let fromEnvironment = try ObjectStoreLocation("s3://b/p", environment: ["AWS_ENDPOINT_URL_S3": "https://r2.example"])
        #expect(fromEnvironment.url("k") == "https://r2.example/b/p/k")
    }

    @Test func badLocationsAreRefused() {
        #expect(throws: PublishError.self) { try ObjectStoreLocation("https://bucket/p", environment: [:]) }
        #expect(throws: PublishError.self) { try ObjectStoreLocation("s3:///p", environment: [:]) }
        #expect(throws: PublishError.self) { try ObjectStoreLocation("s3://b/p/../q", environment: [:]) }
        #expect(throws: PublishError.self) { try ObjectStoreLocation("s3://b/p", endpoint: "ftp://x", environment: [:]) }
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
