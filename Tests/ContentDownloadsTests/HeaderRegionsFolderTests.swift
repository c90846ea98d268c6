@testable import ContentDownloads
@testable import ContentPackaging
import Foundation
import Glibc
import Testing
import TestSupport

/// The header check of a chunk plan matches each header to the file or folder it must be without remembering every
/// path; a folder entry the archive holds twice is still refused (`iapcontent pack` never writes one).
@Suite("Header regions: folders")
struct HeaderRegionsFolderTests {
    /// A one-chunk archive of `folders` (in this order, repeats allowed) and one file, with its manifest.
    static func archive(folders: [String], in directory: TemporaryDirectory) throws -> (ChunkedPackage, Data) {
        let path = directory.appending("a.tar.zst").path
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        var writer = try ArchiveWriter(
            fileDescriptor: fd, displayPath: path, compressionLevel: 3,
            chunking: try ChunkingParameters(minimum: 1 << 20, average: 2 << 20, maximum: 8 << 20))
        let info = PackageFixture.xmlContentInfo(productID: "com.example.folders")
        var files: [PackageManifest.File] = []
        try Self.write("ContentInfo.plist", info, to: &writer, files: &files)
        for folder in folders {
            try writer.writeHeader(ArchiveEntryHeader(pathBytes: Array(folder.utf8), kind: .directory, size: 0, permissions: 0o755), modificationTime: 0)
        }
        try Self.write("Contents/maps/one.txt", Data("level one\n".utf8), to: &writer, files: &files)
        let finished = try writer.finishIndexed()
        for index in files.indices { files[index].storedSHA256 = finished.fileSHA256s[index] }
        let manifest = PackageManifest(
            productID: "com.example.folders", contentVersion: try #require(ContentVersion("1.0")), archiveName: "a.tar.zst",
            archiveSize: finished.size, archiveSHA256: nil, uncompressedSize: files.reduce(0) { $0 + $1.size },
            entryCount: files.count + Set(folders).count, files: files, directories: Array(Set(folders)).sorted(),
            chunking: ChunkingParameters.standard.manifestDescription, chunks: finished.chunks)
        let package = try ChunkedPackage(manifest: manifest, expectedLength: finished.size, expectedSHA256: "", display: "a.tar.zst")
        return (package, try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes one regular file and lists it.
    static func write(_ name: String, _ data: Data, to writer: inout ArchiveWriter, files: inout [PackageManifest.File]) throws {
        try writer.writeHeader(ArchiveEntryHeader(pathBytes: Array(name.utf8), kind: .regular, size: Int64(data.count), permissions: 0o644), modificationTime: 0)
        files.append(PackageManifest.File(path: name, size: Int64(data.count), sha256: "", dataOffset: writer.streamOffset))
        try data.withUnsafeBytes { bytes throws in try writer.writeData(bytes) }
    }

    @Test("each folder once passes; a folder entered twice is refused, named")
    func aFolderEnteredTwiceIsRefused() throws {
        let directory = try TemporaryDirectory("regions-folders")
        let (sound, soundArchive) = try Self.archive(folders: ["Contents", "Contents/maps"], in: directory)
        #expect(HeaderRegionsPropertyTests.check(sound, archive: soundArchive, order: Array(sound.chunks.indices)) == nil)

        let (twice, twiceArchive) = try Self.archive(folders: ["Contents", "Contents/maps", "Contents/maps"], in: directory)
        let refusal = try #require(HeaderRegionsPropertyTests.check(twice, archive: twiceArchive, order: Array(twice.chunks.indices)))
        #expect("\(refusal)".contains("Contents/maps") && "\(refusal)".contains("twice"), "\(refusal)")
    }
}
