internal import Crypto
package import Foundation
internal import SystemSupport

/// Uses a content patch whose own bytes a signed catalog vouched for: checks it applies to the installed manifest,
/// makes the new manifest and checks it against the catalog's hash, then makes each new file it carries and checks
/// it against the new manifest — so no byte it makes is used before the signed chain vouched for it.
package struct PatchApplier: Sendable {
    /// The patch, read.
    package let patch: ContentPatch
    /// The new manifest, byte for byte as the catalog's hash says.
    package let newManifestData: Data
    /// The new manifest, decoded.
    package let newManifest: PackageManifest
    /// The installed manifest the patch applies to, decoded.
    package let oldManifest: PackageManifest
    private let data: Data

    /// Reads `data` (a patch whose length and SHA-256 the caller checked against a signed catalog), checks it was
    /// made from `installedManifest` (the installed version's manifest, byte for byte), and makes the new manifest,
    /// which must hash to `expectedManifestSHA256` (the catalog's).
    /// - Throws: ``PatchError`` naming the field, its offset and what to do.
    package init(_ data: Data, installedManifest: Data, expectedManifestSHA256: String) throws(PatchError) {
        self.data = data
        patch = try ContentPatch.read(data)
        let installed = SHA256.hash(data: installedManifest).lowercaseHex
        guard installed == patch.fromManifestSHA256 else {
            throw PatchError("the patch was made from the manifest with SHA-256 \(patch.fromManifestSHA256), the installed one has \(installed): it is for another installed version", offset: 16)
        }
        guard patch.toManifestSHA256 == expectedManifestSHA256.lowercased() else {
            throw PatchError("the patch makes the manifest with SHA-256 \(patch.toManifestSHA256), the catalog names \(expectedManifestSHA256.lowercased())", offset: 48)
        }
        let frame = data.subdata(in: data.startIndex + patch.manifestFrame.lowerBound..<data.startIndex + patch.manifestFrame.upperBound)
        newManifestData = try ZstdPrefixCodec.decompress(
            frame, prefix: installedManifest, size: patch.toManifestLength, what: "the new manifest", offset: patch.manifestFrame.lowerBound)
        let made = SHA256.hash(data: newManifestData).lowercaseHex
        guard made == patch.toManifestSHA256 else {
            throw PatchError("the new manifest it makes has SHA-256 \(made), the catalog names \(patch.toManifestSHA256)", offset: patch.manifestFrame.lowerBound)
        }
        do {
            newManifest = try PackageManifest.decode(newManifestData)
            oldManifest = try PackageManifest.decode(installedManifest)
        } catch {
            throw PatchError("a manifest does not decode: \(error)")
        }
        for entry in patch.entries {
            guard entry.newFile < newManifest.files.count else {
                throw PatchError("an entry names new file \(entry.newFile), the new manifest lists \(newManifest.files.count)")
            }
            guard newManifest.files[entry.newFile].size <= PatchFormat.largestPatchedFile else {
                throw PatchError("an entry carries \(newManifest.files[entry.newFile].path), of \(newManifest.files[entry.newFile].size) bytes: past the largest a patch carries, \(PatchFormat.largestPatchedFile)")
            }
            if let old = entry.oldFile, old >= oldManifest.files.count || oldManifest.files[old].size > PatchFormat.largestPatchedFile {
                throw PatchError("the entry for \(newManifest.files[entry.newFile].path) is compressed against old file \(old), which the installed manifest does not list (or is past the largest a patch uses)")
            }
        }
    }

    /// The new files (indices into the new manifest's files) the patch carries.
    package var carriedFiles: [Int] { patch.entries.map(\.newFile) }

    /// Makes the new file of `entry` from its frame and `old` (the installed file the entry names, read by the
    /// caller; `nil` when it names none) and checks its length and SHA-256 against the new manifest.
    /// - Throws: ``PatchError`` when the frame does not decode against `old` (an installed file changed since it
    ///   was installed) or the bytes are not the file the new manifest lists.
    package func file(_ entry: ContentPatch.Entry, old: Data?) throws(PatchError) -> Data {
        let file = newManifest.files[entry.newFile]
        let frame = data.subdata(in: data.startIndex + entry.frame.lowerBound..<data.startIndex + entry.frame.upperBound)
        let bytes = try ZstdPrefixCodec.decompress(
            frame, prefix: entry.oldFile == nil ? nil : old, size: Int(file.size), what: file.path, offset: entry.frame.lowerBound)
        let hash = SHA256.hash(data: bytes).lowercaseHex
        guard hash == file.sha256 else {
            throw PatchError("\(file.path): the patch makes bytes with SHA-256 \(hash), the new manifest says \(file.sha256); the installed file it starts from may have changed — repair it, or the update fetches the file's chunks", offset: entry.frame.lowerBound)
        }
        return bytes
    }
}
