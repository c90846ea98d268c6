internal import Foundation

/// Checks, before the first real write, that the server honours conditional writes: a probe object written
/// create-only twice must be refused (412) the second time, and a compare-and-swap against a wrong ETag must be
/// refused too. A server that ignores either would let a rerun or a second publisher overwrite a catalog.
enum ConditionalWriteProbe {
    /// The folder of probe objects under the prefix (`probes/<random>`); removed right away where the
    /// credentials may delete, else left for `iapcontent prune`.
    static let folder = "probes/"

    /// Runs the probe.
    /// - Throws: ``PublishError`` naming the server when it ignores a condition.
    static func run(_ client: ObjectStoreClient) throws(PublishError) {
        let name = folder + UUID().uuidString.lowercased()
        let body = ObjectRequest.Body.data(Data("iapcontent conditional-write probe\n".utf8))
        let headers = ["Content-Type: text/plain", "Cache-Control: no-store"]
        let server = client.location.serverName
        guard case .written = try client.put(name, body: body, condition: .createOnly, headers: headers) else {
            throw PublishError("the probe \(client.location.displayName(name)) already exists on \(server) although its name is random: the server does not follow If-None-Match; publish to a server with conditional writes")
        }
        guard try client.put(name, body: body, condition: .createOnly, headers: headers) == .preconditionFailed else {
            throw PublishError("the server at \(server) ignores If-None-Match (writing the probe \(client.location.displayName(name)) create-only twice succeeded twice): a rerun or a second publisher could overwrite what another wrote, so nothing is published there; use a server with conditional writes (AWS S3, Cloudflare R2, MinIO, SeaweedFS 4 and later)")
        }
        guard try client.put(name, body: body, condition: .ifMatch("\"0000000000000000\""), headers: headers) == .preconditionFailed else {
            throw PublishError("the server at \(server) ignores If-Match (writing the probe \(client.location.displayName(name)) against a wrong ETag succeeded): two publishers at once could both replace the catalog, so nothing is published there; use a server with conditional writes")
        }
        try? client.delete(name)
    }
}
