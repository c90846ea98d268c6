/// The layout of a content patch (`.patch`, docs/MANIFEST-FORMAT.md, "Patches"): what an update from one version
/// of a product to another needs beyond the files the two share, precomputed by the publisher so a static host
/// serves it as one file.
///
/// All integers little-endian:
///
/// | bytes | field |
/// | --- | --- |
/// | 8 | magic `IAPPATCH` |
/// | 2 | format version, 1 |
/// | 2 | reserved, 0 |
/// | 4 | entry count `n` |
/// | 32 | SHA-256 of the manifest patched from (the installed version's, byte for byte as published) |
/// | 32 | SHA-256 of the manifest patched to |
/// | 8 | length of the new manifest |
/// | 4 | length of the manifest's frame |
/// | 12 × n | entries: the new file (its index in the new manifest's files, ascending), the old file its frame is compressed against (index in the old manifest's files, `0xFFFFFFFF` for none), the frame's length |
/// | … | the manifest's frame: the new manifest, zstd-compressed with the old one as its prefix (`zstd --patch-from`) |
/// | … | the entries' frames, in entry order: each new file, compressed with its old file as prefix, or alone |
///
/// Every frame is a standard zstd frame (content size in its header, a checksum): `zstd -d --patch-from=OLD` decodes
/// one cut out with `dd`. The file's own SHA-256 and length are what a signed catalog vouches for; a client still
/// checks the new manifest against the catalog's hash, and each file against the new manifest, before using a byte.
package enum PatchFormat {
    /// The file's first bytes.
    package static let magic: [UInt8] = Array("IAPPATCH".utf8)
    /// The one format version this client reads and `patch` writes.
    package static let version: UInt16 = 1
    /// Bytes before the entries.
    package static let headerLength = 8 + 2 + 2 + 4 + 32 + 32 + 8 + 4
    /// Bytes of one entry.
    package static let entryLength = 12
    /// An entry whose frame is compressed alone (a file with no old version).
    package static let noOldFile: UInt32 = .max
    /// The compression level of every frame: a patch is made once and fetched by every client that updates.
    package static let level: Int32 = 19
    /// The largest window a frame may ask a decoder for (2^27, 128 MiB): a file is patched against an old file of at
    /// most ``largestPatchedFile`` bytes, which must fit in the window with the new one.
    package static let windowLog: Int32 = 27
    /// Files larger than this get no frame of their own: their chunks are fetched as for any update (a frame decoded
    /// whole in memory stays bounded).
    package static let largestPatchedFile: Int64 = 32 << 20
    /// The largest patch a client fetches (it holds one in memory while it applies it): 256 MiB. A catalog that
    /// offers a larger one is not followed there; the update fetches the manifest and the chunks.
    package static let largestPatch: Int64 = 256 << 20
}
