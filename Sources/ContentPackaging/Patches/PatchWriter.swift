internal import Crypto
package import Foundation
internal import SystemSupport

/// Writes the content patch (``PatchFormat``) that updates an installed version to a new one: the new manifest
/// against the old, and every new file whose content the old version does not hold anywhere, against the old file
/// of the same path when there is one. Files the old version holds (at any path) are linked by the client and
/// cost nothing; files past ``PatchFormat/largestPatchedFile`` are left to the chunks.
package enum PatchWriter {
    /// What a patch holds, for the publisher's report.
    package struct Summary: Sendable, Equatable {
        /// The patch's length in bytes.
        package var bytes: Int
        /// Files it carries.
        package var files: Int
        /// Their bytes, uncompressed.
        package var fileBytes: Int64
        /// The new manifest's frame, in bytes.
        package var manifestFrameBytes: Int
        /// New files whose content the old version lacks and the patch leaves to the chunks (too large).
        package var leftToChunks: Int
    }

    /// The patch from the package at `oldFolder` (as packed, described by the manifest file `oldManifest`) to the one at
    /// `newFolder` (`newManifest`).
    /// - Throws: ``PatchError`` when a manifest does not decode or a folder's file is not what its manifest says.
    package static func write(
        oldManifest: Data, oldFolder: URL, newManifest: Data, newFolder: URL
    ) throws(PatchError) -> (patch: Data, summary: Summary) {
        let old: PackageManifest, new: PackageManifest
        do {
            old = try PackageManifest.decode(oldManifest)
            new = try PackageManifest.decode(newManifest)
        } catch {
            throw PatchError("a manifest does not decode: \(error)")
        }
        let held = Set(old.files.lazy.filter { $0.size > 0 }.map(\.sha256))
        let oldByPath = Dictionary(old.files.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { first, _ in first })
        var entries: [(newFile: Int, oldFile: Int?, frame: Data)] = []
        var summary = Summary(bytes: 0, files: 0, fileBytes: 0, manifestFrameBytes: 0, leftToChunks: 0)
        for (index, file) in new.files.enumerated() where file.size > 0 && !held.contains(file.sha256) {
            guard file.size <= PatchFormat.largestPatchedFile else {
                summary.leftToChunks += 1
                continue
            }
            let content = try read(file, in: newFolder, side: "new")
            let oldIndex = oldByPath[file.path].flatMap { old.files[$0].size > 0 && old.files[$0].size <= PatchFormat.largestPatchedFile ? $0 : nil }
            let prefix = try oldIndex.map { index throws(PatchError) in try read(old.files[index], in: oldFolder, side: "old") }
            entries.append((index, oldIndex, try ZstdPrefixCodec.compress(content, prefix: prefix, level: PatchFormat.level)))
            summary.files += 1
            summary.fileBytes += file.size
        }
        let manifestFrame = try ZstdPrefixCodec.compress(newManifest, prefix: oldManifest, level: PatchFormat.level)
        var patch = Data(PatchFormat.magic)
        patch.appendLittleEndian(PatchFormat.version)
        patch.appendLittleEndian(UInt16(0))
        patch.appendLittleEndian(UInt32(entries.count))
        patch.append(contentsOf: SHA256.hash(data: oldManifest))
        patch.append(contentsOf: SHA256.hash(data: newManifest))
        patch.appendLittleEndian(UInt64(newManifest.count))
        patch.appendLittleEndian(UInt32(manifestFrame.count))
        for entry in entries {
            patch.appendLittleEndian(UInt32(entry.newFile))
            patch.appendLittleEndian(entry.oldFile.map { UInt32($0) } ?? PatchFormat.noOldFile)
            patch.appendLittleEndian(UInt32(entry.frame.count))
        }
        patch.append(manifestFrame)
        for entry in entries { patch.append(entry.frame) }
        summary.bytes = patch.count
        summary.manifestFrameBytes = manifestFrame.count
        return (patch, summary)
    }

    /// The patch's file name beside the archives: `<product>-<old version>-to-<new version>.patch`.
    package static func fileName(productID: String, from old: ContentVersion, to new: ContentVersion) -> String {
        "\(productID)-\(old)-to-\(new).patch"
    }

    /// Writes `patch` to `url` durably (temp, fsync, rename, fsync of the folder).
    package static func save(_ patch: Data, to url: URL) throws(PatchError) {
        do { try DurableFile.write(patch, to: url) } catch {
            throw PatchError("cannot write \(url.path): \(error)")
        }
    }

    /// The bytes of `file` in the package at `folder`, checked against the manifest's SHA-256.
    private static func read(_ file: PackageManifest.File, in folder: URL, side: String) throws(PatchError) -> Data {
        let url = folder.appendingPathComponent(file.path, isDirectory: false)
        guard let bytes = try? Data(contentsOf: url) else {
            throw PatchError("cannot read \(url.path), which the \(side) manifest lists: pass the folder that version was packed from")
        }
        guard SHA256.hash(data: bytes).lowercaseHex == file.sha256 else {
            throw PatchError("\(url.path) is not the file the \(side) manifest lists (its SHA-256 differs): pass the folder that version was packed from")
        }
        return bytes
    }
}

extension Data {
    /// Appends `value` in little-endian byte order.
    fileprivate mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
