import ContentPackaging

extension CatalogProduct {
    /// The entry as `catalog.json` writes it (``Catalog/encoder``), as metadata holds it: what an archive target's
    /// `custom` carries. Built field by field rather than encoded and parsed again: a store of a million products
    /// makes a million of these per build, and the encoder and parser were a tenth of it. `CatalogProductJSONTests`
    /// checks it against the encoder for every shape of entry, and fails when a field is added here but not there.
    var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "productID": .string(productID),
            "contentIdentifier": .string(contentIdentifier),
            "contentVersion": .string(contentVersion.description),
            "path": .string(path),
            "length": .integer(length),
            "sha256": .string(sha256),
            "uncompressedSize": .integer(uncompressedSize),
            "entryCount": .integer(Int64(entryCount)),
            "format": .string(format),
        ]
        if let url { members["url"] = .string(url) }
        if let manifest {
            members["manifest"] = [
                "path": .string(manifest.path), "length": .integer(manifest.length), "sha256": .string(manifest.sha256),
            ]
        }
        if let patches {
            members["patches"] = .array(patches.map { patch in
                [
                    "fromVersion": .string(patch.fromVersion.description), "fromManifestSHA256": .string(patch.fromManifestSHA256),
                    "path": .string(patch.path), "length": .integer(patch.length), "sha256": .string(patch.sha256),
                ]
            })
        }
        return .object(members)
    }
}
