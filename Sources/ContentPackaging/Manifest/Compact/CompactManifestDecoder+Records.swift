import CZstd
internal import Foundation
import Glibc

/// The body's records: files, paths (front-coded, checked as they are rebuilt) and chunks.
extension CompactManifestDecoder {
    /// The file columns: paths, sizes, linked files (`withLinks`), data offsets, SHA-256s; a linked file's data
    /// offset is not stored but its source's. A path `reference` also lists (both sorted byte-wise, so one walk finds
    /// them) shares its bytes: an update's installed manifest then costs the paths that changed.
    static func files(
        _ input: inout ManifestBodyReader, count: Int, withLinks: Bool = false, withOffsets: Bool, pathBytes: Int,
        sharingPathsWith reference: [PackageManifest.File]? = nil
    ) throws(ManifestFormatError) -> (files: [PackageManifest.File], linked: [PackageManifest.LinkedFile]?) {
        // Every path in one buffer, sized beforehand: a million files' paths are one allocation, not a million.
        var builder = StoredPath.Builder(paths: count, bytes: pathBytes)
        var files: [PackageManifest.File]
        if let reference {
            // For each file, the reference record holding its path, or -1: its path is the builder's next.
            var shared: [Int32] = []
            shared.reserveCapacity(count)
            var cursor = 0
            try paths(&input, count: count, name: "file") { path in
                while cursor < reference.count, reference[cursor].storedPath.withUTF8({ $0.lexicographicallyPrecedes(path) }) {
                    cursor += 1
                }
                if cursor < reference.count, reference[cursor].storedPath.withUTF8({ $0.elementsEqual(path) }) {
                    shared.append(Int32(cursor))
                } else {
                    shared.append(-1)
                    builder.append(path)
                }
            }
            var own = builder.finish().makeIterator()
            files = []
            files.reserveCapacity(count)
            for index in shared {
                let path = index >= 0 ? reference[Int(index)].storedPath : own.next()!
                files.append(PackageManifest.File(storedPath: path, size: 0, storedSHA256: .text("")))
            }
        } else {
            try paths(&input, count: count, name: "file") { builder.append($0) }
            files = builder.finish { PackageManifest.File(storedPath: $0, size: 0, storedSHA256: .text("")) }
        }
        for index in files.indices { files[index].size = try input.count("file \(index)'s size", atMost: Int64.max) }
        let linked = withLinks ? try linkedFiles(&input, fileCount: count) : nil
        var sources: [Int: Int] = [:]
        for link in linked ?? [] { sources[link.file] = link.source }
        if withOffsets {
            var end: Int64 = 0
            for index in files.indices {
                if let source = sources[index] {
                    files[index].dataOffset = files[source].dataOffset
                    continue
                }
                let offset = input.position
                let delta = try input.signed("file \(index)'s data offset")
                let (start, overflow) = end.addingReportingOverflow(delta)
                let (next, past) = start.addingReportingOverflow(files[index].size)
                guard !overflow, !past, start >= 0 else {
                    throw input.error("file \(index)'s data offset", at: offset, "puts the data outside the tar stream (\(delta) after byte \(end)); the manifest is damaged — pack it again")
                }
                files[index].dataOffset = start
                end = next
            }
        }
        for index in files.indices { files[index].storedSHA256 = try input.storedDigest("file \(index)'s SHA-256") }
        return (files, linked)
    }

    /// The linked-file column: a count, then per link its file's distance from the previous link's file (less one)
    /// and its distance back to its source; each link names a file of the `fileCount` and an earlier source.
    private static func linkedFiles(_ input: inout ManifestBodyReader, fileCount: Int) throws(ManifestFormatError) -> [PackageManifest.LinkedFile] {
        let count = Int(try input.count("linked file count", atMost: Int64(min(fileCount, input.remaining / CompactManifestFormat.minimumLinkBytes))))
        var links: [PackageManifest.LinkedFile] = []
        links.reserveCapacity(count)
        var previous = -1
        for position in 0..<count {
            let offset = input.position
            guard previous + 1 < fileCount else {
                throw input.error("linked file \(position)'s index", at: offset, "comes after the last file; the manifest is damaged — pack it again")
            }
            let gap = try input.count("linked file \(position)'s index", atMost: Int64(fileCount - previous - 2))
            let file = previous + 1 + Int(gap)
            let back = try input.count("linked file \(position)'s source", atMost: Int64(file))
            guard back >= 1 else {
                throw input.error("linked file \(position)'s source", at: offset, "links file \(file) to itself; the manifest is damaged — pack it again")
            }
            links.append(PackageManifest.LinkedFile(file: file, source: file - Int(back)))
            previous = file
        }
        return links
    }

    /// The bytes of the `count` front-coded paths at `input`'s position once rebuilt, from their lengths alone,
    /// to size the buffer that holds them; the count so far where the bytes are damaged (a reader of its own
    /// reads them, so ``paths(_:count:name:_:)`` still meets the damage and reports it).
    static func pathBytes(_ input: inout ManifestBodyReader, count: Int) -> Int {
        var total = 0
        var previous: Int64 = 0
        for _ in 0..<count {
            guard let shared = try? input.count("path", atMost: previous),
                  let length = try? input.count("path", atMost: Int64(PathRules.maxPathBytes) - shared),
                  (try? input.raw("path", count: Int(length))) != nil
            else { break }
            previous = shared + length
            total += Int(previous)
        }
        return total
    }

    /// `count` front-coded paths, handed to `each` in order as their bytes, each passing ``PathRules`` and
    /// strictly after the previous one byte-wise.
    static func paths(
        _ input: inout ManifestBodyReader, count: Int, name: String, _ each: ([UInt8]) -> Void
    ) throws(ManifestFormatError) {
        var previous: [UInt8] = []
        previous.reserveCapacity(PathRules.maxPathBytes)
        for index in 0..<count {
            let field = "\(name) \(index)'s path"
            let offset = input.position
            let shared = Int(try input.count(field, atMost: Int64(previous.count)))
            let length = Int(try input.count(field, atMost: Int64(PathRules.maxPathBytes - shared)))
            let suffix = try input.raw(field, count: length)
            // Strictly after the previous path: a longer path that extends it, or a larger first differing byte.
            guard length > 0, index == 0 || shared == previous.count || suffix[0] > previous[shared] else {
                throw input.error(field, at: offset, "is not after \(name) \(index - 1)'s path in byte-wise order (or repeats it); the manifest is damaged — pack it again")
            }
            previous.removeSubrange(shared...)
            previous.append(contentsOf: suffix)
            if let problem = pathProblem(previous) {
                throw input.error(field, at: offset, "'\(String(decoding: previous, as: UTF8.self))': \(problem); the manifest is damaged — pack it again")
            }
            each(previous)
        }
    }

    /// The first ``PathRules`` problem of `path`, or a trailing `/`; a quick scan passes the usual
    /// printable-ASCII path without the full check.
    static func pathProblem(_ path: [UInt8]) -> String? {
        var plain = !path.isEmpty && path.count <= PathRules.maxPathBytes
        var start = 0
        for index in 0...path.count where plain {
            guard index < path.count, path[index] != UInt8(ascii: "/") else {
                let length = index - start
                let dots = length <= 2 && path[start..<index].allSatisfy { $0 == UInt8(ascii: ".") }
                plain = length > 0 && length <= PathRules.maxComponentBytes && !dots
                start = index + 1
                continue
            }
            let byte = path[index]
            plain = byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\")
        }
        if plain { return nil }
        return PathRules.problems(inPath: path).first ?? (path.last == UInt8(ascii: "/") ? "ends in '/'" : nil)
    }

    /// The chunk columns: frame lengths, uncompressed lengths, SHA-256s; offsets are the running sums from
    /// `firstOffset` (after a stored dictionary).
    static func chunks(_ input: inout ManifestBodyReader, count: Int, from firstOffset: Int64) throws(ManifestFormatError) -> [ArchiveChunk] {
        var chunks: [ArchiveChunk] = []
        chunks.reserveCapacity(count)
        var offset: Int64 = firstOffset
        for index in 0..<count {
            let at = input.position
            let length = try input.count("chunk \(index)'s length", atMost: Int64.max)
            chunks.append(ArchiveChunk(offset: offset, length: length, uncompressedOffset: 0, uncompressedLength: 0, sha256: ""))
            let (next, overflow) = offset.addingReportingOverflow(length)
            guard !overflow else { throw input.error("chunk \(index)'s length", at: at, "runs the archive past 2^63 bytes; the manifest is damaged — pack it again") }
            offset = next
        }
        var uncompressed: Int64 = 0
        for index in 0..<count {
            let at = input.position
            let length = try input.count("chunk \(index)'s uncompressed length", atMost: Int64.max)
            chunks[index].uncompressedOffset = uncompressed
            chunks[index].uncompressedLength = length
            let (next, overflow) = uncompressed.addingReportingOverflow(length)
            guard !overflow else { throw input.error("chunk \(index)'s uncompressed length", at: at, "runs the tar stream past 2^63 bytes; the manifest is damaged — pack it again") }
            uncompressed = next
        }
        for index in 0..<count { chunks[index].storedSHA256 = try input.storedDigest("chunk \(index)'s SHA-256") }
        return chunks
    }
}
