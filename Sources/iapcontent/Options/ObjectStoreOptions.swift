import ContentPublishing
import ArgumentParser
import ContentDownloads
import Foundation

/// `--endpoint`, `--region` and `--ca-file` for the commands that write to S3-compatible storage (`publish`,
/// `prune`); the credentials come from the environment and `~/.aws`, as the AWS CLI reads them, and so does the CA
/// bundle for an https endpoint when `--ca-file` is not given (`AWS_CA_BUNDLE`).
struct ObjectStoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The S3-compatible server (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS itself).", valueName: "url"))
    var endpoint: String?

    @Option(help: ArgumentHelp(
        "The region requests are signed for (default: $AWS_REGION, $AWS_DEFAULT_REGION, the profile's, else us-east-1; R2: auto).",
        valueName: "name"))
    var region: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "A PEM file of the certificate authorities an https endpoint is checked against (default: $AWS_CA_BUNDLE, else the system's).",
            valueName: "path"))
    var caFile: String?

    /// A client for `destination` (`s3://bucket/prefix`); `afterRequest` sees every request once done.
    func client(
        for destination: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        afterRequest: @escaping (ObjectRequest) -> Void = { _ in }
    ) throws -> ObjectStoreClient {
        let region = region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"]
            ?? ObjectStoreCredentials.configuredRegion(environment: environment)
        let location = try ObjectStoreLocation(destination, endpoint: endpoint, region: region, environment: environment)
        let credentials = try ObjectStoreCredentials.resolve(environment: environment)
        let caFile = caFile ?? environment["AWS_CA_BUNDLE"].flatMap { $0.isEmpty ? nil : $0 }
        return ObjectStoreClient(location: location, credentials: credentials, caFile: caFile, afterRequest: afterRequest)
    }
}
