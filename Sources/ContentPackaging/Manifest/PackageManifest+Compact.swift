public import Foundation

extension PackageManifest {
    /// The largest compact manifest a client fetches, in bytes as published: 64 MiB. A million files with
    /// paths like `levels/world-00/zone-04/item-007.json` take about 40 MiB (docs/MANIFEST-FORMAT.md).
    public static let largestCompactManifest = 64 << 20

    /// The largest body a compact manifest may declare, decompressed: 256 MiB. A reader decompresses a window
    /// at a time and refuses a frame that decodes to more (or less) than declared, so a small file cannot inflate
    /// past it.
    public static let largestCompactBody = 256 << 20

    /// The manifest in the compact format (docs/MANIFEST-FORMAT.md): a binary body — header, front-coded
    /// paths, varint sizes and offsets, raw SHA-256s, chunk lengths — compressed with zstd. About 40 bytes
    /// a file where the JSON of ``encoded()`` takes 220, so content of a million files has a manifest a
    /// client can fetch. Deterministic: the same manifest gives the same bytes.
    /// - Throws: ``ManifestFormatError`` when the manifest does not fit the format: paths out of byte-wise
    ///   order, a hash that is not a SHA-256, chunks that do not follow each other, or a body past
    ///   ``largestCompactBody``.
    public func compactEncoded() throws(ManifestFormatError) -> Data {
        try CompactManifestEncoder.encode(self)
    }

    /// Whether `data` is a compact manifest (it starts with the format's magic) rather than JSON.
    public static func isCompact(_ data: Data) -> Bool {
        CompactManifestDecoder.isCompact(data)
    }
}
