package import Foundation

/// What every role's `signed` object carries: `_type`, `spec_version`, `version`, `expires`.
package protocol RoleMetadata: Sendable, Equatable {
    /// The role's `_type` (`root`, `targets`, `snapshot`, `timestamp`; a delegated bin is `targets`).
    static var type: String { get }
    /// The version, expiry and specification version.
    var header: MetadataHeader { get set }
    /// Reads the role's own fields from `signed` (the header is read by the caller).
    init(fields: MetadataFields, header: MetadataHeader) throws(MetadataError)
    /// The role's own fields as metadata holds them (merged with the header's by ``signedJSON``).
    var bodyJSON: [String: JSONValue] { get }
}

/// The fields every role shares.
package struct MetadataHeader: Sendable, Equatable {
    /// The TUF specification version written: 1.0.31.
    package static let writtenSpecVersion = "1.0.31"

    /// The largest version accepted (2^53): far beyond any real repository, and a next version always exists.
    package static let largestVersion: Int64 = 1 << 53

    /// Increases by one with each new document of the role; at least 1.
    package var version: Int64
    /// After this instant clients refuse the document.
    package var expires: Date
    /// `spec_version`; its major version must be 1.
    package var specVersion: String

    /// A header of `version` expiring at `expires` (whole seconds).
    package init(version: Int64, expires: Date, specVersion: String = MetadataHeader.writtenSpecVersion) {
        self.version = version
        self.expires = Date(timeIntervalSince1970: expires.timeIntervalSince1970.rounded(.down))
        self.specVersion = specVersion
    }

    /// Reads `_type` (which must be `type`), `spec_version`, `version` and `expires`.
    package init(_ fields: MetadataFields, type: String) throws(MetadataError) {
        let found = try fields.string("_type")
        guard found == type else { throw .wrongType(role: fields.role, expected: type, found: found) }
        specVersion = try fields.string("spec_version")
        let parts = specVersion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts.count <= 3, parts.first == "1", parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) })
        else {
            throw fields.invalid("spec_version", "is \"\(specVersion)\"; only specification 1.x is supported")
        }
        version = try fields.integer("version", minimum: 1)
        guard version <= Self.largestVersion else {
            throw fields.invalid("version", "is \(version), more than \(Self.largestVersion): no repository publishes that often")
        }
        expires = try fields.date("expires")
    }

    /// Throws ``MetadataError/expired(role:expires:)`` when `now` is at or past the expiry.
    package func checkNotExpired(role: String, now: Date) throws(MetadataError) {
        guard now < expires else { throw .expired(role: role, expires: CatalogDate.string(from: expires)) }
    }
}

extension RoleMetadata {
    /// The whole `signed` object: the role's fields, `_type`, `spec_version`, `version`, `expires`.
    package var signedJSON: JSONValue {
        var members = bodyJSON
        members["_type"] = .string(Self.type)
        members["spec_version"] = .string(header.specVersion)
        members["version"] = .integer(header.version)
        members["expires"] = .string(CatalogDate.string(from: header.expires))
        return .object(members)
    }

    /// The version.
    package var version: Int64 { header.version }
}
