internal import Foundation

/// The access key a publisher signs its requests with, found where the AWS CLI finds it: `AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` first, else the profile `AWS_PROFILE` (default `default`) of the
/// shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`).
package struct ObjectStoreCredentials: Sendable, Equatable {
    /// The access key ID.
    package var accessKeyID: String
    /// The secret access key.
    package var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`.
    package var sessionToken: String?

    /// Credentials given directly.
    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The credentials of `environment`, or of its profile in the shared credentials file.
    /// - Throws: ``PublishError`` naming the variables and the file looked at.
    package static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws(PublishError) -> ObjectStoreCredentials {
        if let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty {
            guard let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
                throw PublishError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; set both")
            }
            let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            return ObjectStoreCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: token)
        }
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let home = environment["HOME"] ?? NSHomeDirectory()
        let path = environment["AWS_SHARED_CREDENTIALS_FILE"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.aws/credentials"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw PublishError("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or write profile [\(profile)] into \(path) (AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE)")
        }
        let values = iniSection(profile, of: text)
        guard let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
            throw PublishError("\(path) has no aws_access_key_id and aws_secret_access_key in profile [\(profile)]; add them or pick another profile with AWS_PROFILE")
        }
        return ObjectStoreCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }

    /// The region of `profile` in the AWS CLI's config file (`AWS_CONFIG_FILE`, default `~/.aws/config`), if any.
    package static func configuredRegion(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let home = environment["HOME"] ?? NSHomeDirectory()
        let path = environment["AWS_CONFIG_FILE"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.aws/config"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        // The config file names sections `[profile NAME]`, except `[default]`.
        let values = iniSection(profile == "default" ? "default" : "profile \(profile)", of: text)
        return values["region"]
    }

    /// The `key = value` lines of section `[name]` of an INI text (keys lowercased, `#` and `;` comments skipped).
    static func iniSection(_ name: String, of text: String) -> [String: String] {
        var values: [String: String] = [:]
        var inside = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                inside = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces) == name
                continue
            }
            guard inside, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }
}
