internal import Foundation

/// Where a catalog is published on S3-compatible object storage: `s3://bucket/prefix`, the endpoint that serves
/// the bucket and the region requests are signed for.
///
/// With an endpoint (`--endpoint`, or `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` as the AWS CLI reads them) objects
/// are addressed path-style, `<endpoint>/<bucket>/<key>`, which every S3-compatible server (R2, B2, MinIO,
/// SeaweedFS) answers; without one, AWS itself, virtual-hosted style: `https://<bucket>.s3.<region>.amazonaws.com/<key>`.
package struct ObjectStoreLocation: Sendable, Equatable {
    /// The bucket.
    package var bucket: String
    /// The key prefix every object is written under, without leading or trailing `/` (empty: the bucket's root).
    package var prefix: String
    /// The endpoint's base URL (`http(s)://host[:port]`), without a trailing `/`; `nil` for AWS.
    package var endpoint: String?
    /// The region requests are signed for (`us-east-1` unless told; `auto` for R2).
    package var region: String

    /// Parses `s3://bucket[/prefix]`; `endpoint` and `region` default from the environment as the AWS CLI's do.
    /// - Throws: ``PublishError`` naming the argument and the form expected.
    package init(
        _ argument: String, endpoint: String? = nil, region: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(PublishError) {
        guard argument.hasPrefix("s3://") else {
            throw PublishError("\(argument) is not an s3:// location; give it as s3://bucket/prefix")
        }
        let rest = argument.dropFirst("s3://".count)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        bucket = String(parts[0])
        if let problem = Self.bucketProblem(bucket) {
            throw PublishError("\(argument) names no valid bucket: \(ObjectStoreClient.quoted(bucket)) \(problem) (S3 bucket names are 3 to 63 lowercase letters, digits, '.' and '-', starting and ending with a letter or digit); give it as s3://bucket/prefix")
        }
        prefix = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: CharacterSet(charactersIn: "/")) : ""
        guard !prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
            || prefix.isEmpty
        else {
            throw PublishError("the prefix of \(argument) has an empty, '.' or '..' segment; give it as s3://bucket/some/prefix")
        }
        let given = endpoint ?? environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"]
        if let given, !given.isEmpty {
            guard let url = URL(string: given), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  url.host != nil
            else {
                throw PublishError("the endpoint \(given) is not an http(s) URL; give it as e.g. https://s3.example.com")
            }
            self.endpoint = given.hasSuffix("/") ? String(given.dropLast()) : given
        } else {
            self.endpoint = nil
        }
        self.region = region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
    }

    /// Why `name` is not an S3 bucket name, or `nil` when it is one: 3 to 63 characters, lowercase ASCII letters,
    /// digits, `.` and `-`, starting and ending with a letter or digit, no `..`, not an IPv4 address. Strict because
    /// a bucket is a path segment of every request URL: `.` or `..` there would send the request somewhere other
    /// than the message says. (AWS, R2, B2, MinIO and SeaweedFS all create buckets under these rules.)
    static func bucketProblem(_ name: String) -> String? {
        guard (3...63).contains(name.utf8.count) else { return "is not 3 to 63 characters long" }
        guard name.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }) else {
            return "holds a character other than a lowercase letter, a digit, '.' and '-'"
        }
        let isAlphanumeric: (UInt8) -> Bool = { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        guard isAlphanumeric(name.utf8.first!), isAlphanumeric(name.utf8.last!) else {
            return "does not start and end with a letter or a digit"
        }
        guard !name.contains("..") else { return "holds '..'" }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) { return "is an IP address" }
        return nil
    }

    /// The server as messages name it: the endpoint, or AWS's regional host.
    package var serverName: String { endpoint ?? "https://s3.\(region).amazonaws.com" }

    /// The full object key of `name` (a path relative to the catalog folder) under ``prefix``.
    package func key(_ name: String) -> String { prefix.isEmpty ? name : prefix + "/" + name }

    /// `s3://bucket/<key>`, for messages.
    package func displayName(_ name: String) -> String { "s3://\(bucket)/\(key(name))" }

    /// The request URL of the object `name` (a path under the prefix; empty with `bucketOnly`), with `query`
    /// items sorted and percent-encoded as SigV4 canonicalises them (each item `name=value`, even when empty).
    package func url(_ name: String, query: [(String, String)] = [], bucketOnly: Bool = false) -> String {
        let path = bucketOnly ? "" : "/" + Self.encodePath(key(name))
        let base = endpoint.map { "\($0)/\(Self.encode(bucket))" + path }
            ?? "https://\(bucket).s3.\(region).amazonaws.com" + (bucketOnly ? "/" : path)
        guard !query.isEmpty else { return base }
        let items = query.map { (Self.encode($0.0), Self.encode($0.1)) }.sorted { $0.0 < $1.0 }
        return base + "?" + items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// RFC 3986 unreserved characters stay, everything else is `%XX` (SigV4's URI encoding).
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// ``encode(_:)`` of each `/`-separated segment.
    static func encodePath(_ key: String) -> String {
        key.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }.joined(separator: "/")
    }
}
