public import Foundation

/// A throwaway certificate authority with a server certificate for 127.0.0.1 and a client certificate, made
/// with the `openssl` command in a temp folder: what a TLS server that checks its clients needs, and its clients.
public struct TestCertificates: Sendable {
    /// The folder holding every file (removed by ``remove()``).
    public let directory: URL
    /// The authority's certificate (PEM): trust it to reach the server, and the server trusts clients it signed.
    public var authority: String { path("ca.pem") }
    /// The server's certificate (PEM, `subjectAltName` IP 127.0.0.1).
    public var serverCertificate: String { path("server.pem") }
    /// The server's private key (PEM).
    public var serverKey: String { path("server.key") }
    /// The client's certificate (PEM).
    public var clientCertificate: String { path("client.pem") }
    /// The client's private key (PEM, unencrypted).
    public var clientKey: String { path("client.key") }

    /// Makes the authority and both certificates (P-256 keys, valid for two days).
    public init() throws {
        directory = try TemporaryDirectory.make(prefix: "certificates")
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=iapcontent test authority"])
        try issue("server", subject: "/CN=127.0.0.1", extensions: "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
        try issue("client", subject: "/CN=iapcontent test client", extensions: "extendedKeyUsage=clientAuth\n")
    }

    /// Deletes the folder.
    public func remove() { try? FileManager.default.removeItem(at: directory) }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// `<name>.key` and `<name>.pem`, signed by the authority.
    private func issue(_ name: String, subject: String, extensions: String) throws {
        try Data(extensions.utf8).write(to: URL(fileURLWithPath: path("\(name).ext")))
        try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", subject])
        try openssl(["x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                     "-CAcreateserial", "-out", path("\(name).pem"), "-days", "2", "-extfile", path("\(name).ext")])
    }

    private func openssl(_ arguments: [String]) throws {
        let result = try CommandRunner.run("/usr/bin/openssl", arguments)
        guard result.status == 0 else { throw TestSupportError("openssl \(arguments.first ?? ""): \(result.stderr)") }
    }
}
