import ContentPackaging

extension CatalogProduct {
    /// The entry `value` holds, read straight from the parsed JSON, when it is exactly what ``Catalog/decoder`` would
    /// decode without complaint: every required key present with its type, optional keys absent, `null` or of their
    /// type, unknown keys ignored. `nil` for anything else, and the caller decodes those bytes with the decoder, whose
    /// error names the key at fault. A million-product `repo add` decodes every entry twice; this path costs a third
    /// of the decoder's. `CatalogProductStrictJSONTests` holds it to the decoder on entries right and wrong.
    init?(strictJSON value: JSONValue) {
        guard case .object(let members) = value,
              case .string(let productID)? = members["productID"],
              case .string(let contentIdentifier)? = members["contentIdentifier"],
              case .string(let versionText)? = members["contentVersion"], let contentVersion = ContentVersion(versionText),
              case .string(let path)? = members["path"],
              case .integer(let length)? = members["length"],
              case .string(let sha256)? = members["sha256"],
              case .integer(let uncompressedSize)? = members["uncompressedSize"],
              case .integer(let entryCount)? = members["entryCount"],
              case .string(let format)? = members["format"],
              let url = Self.optional(members["url"], { value -> String? in
                  guard case .string(let text) = value else { return nil }
                  return text
              }),
              let manifest = Self.optional(members["manifest"], ManifestReference.init(strictJSON:)),
              let patches = Self.optional(members["patches"], { value -> [PatchReference]? in
                  guard case .array(let elements) = value else { return nil }
                  let patches = elements.compactMap(PatchReference.init(strictJSON:))
                  return patches.count == elements.count ? patches : nil
              })
        else { return nil }
        self.init(
            productID: productID, contentIdentifier: contentIdentifier, contentVersion: contentVersion, path: path, url: url,
            length: length, sha256: sha256, uncompressedSize: uncompressedSize, entryCount: Int(entryCount), format: format)
        self.manifest = manifest
        self.patches = patches
    }

    /// An optional key's value: `.some(nil)` when absent or `null`, `.some(read)` when `read` takes it, `nil` (not
    /// strict) when it does not.
    private static func optional<Value>(_ value: JSONValue?, _ read: (JSONValue) -> Value?) -> Value?? {
        guard let value, value != .null else { return .some(nil) }
        guard let read = read(value) else { return nil }
        return .some(read)
    }
}

extension ManifestReference {
    /// The reference `value` holds when the decoder would decode it without complaint; see
    /// ``CatalogProduct/init(strictJSON:)``.
    init?(strictJSON value: JSONValue) {
        guard case .object(let members) = value, case .string(let path)? = members["path"],
              case .integer(let length)? = members["length"], case .string(let sha256)? = members["sha256"]
        else { return nil }
        self.init(path: path, length: length, sha256: sha256)
    }
}

extension PatchReference {
    /// The reference `value` holds when the decoder would decode it without complaint; see
    /// ``CatalogProduct/init(strictJSON:)``.
    init?(strictJSON value: JSONValue) {
        guard case .object(let members) = value,
              case .string(let versionText)? = members["fromVersion"], let fromVersion = ContentVersion(versionText),
              case .string(let fromManifestSHA256)? = members["fromManifestSHA256"], case .string(let path)? = members["path"],
              case .integer(let length)? = members["length"], case .string(let sha256)? = members["sha256"]
        else { return nil }
        self.init(fromVersion: fromVersion, fromManifestSHA256: fromManifestSHA256, path: path, length: length, sha256: sha256)
    }
}
