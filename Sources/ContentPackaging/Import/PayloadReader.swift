/// Reads a component's `Payload` (a cpio archive, gzip'd) into the staging folder, held to what its
/// `PackageInfo` declares.
///
/// Member names are the content folder's with pkgbuild's `./` in front (`./ContentInfo.plist`,
/// `./Contents/a.png`); the root `.` is skipped. Everything else goes through ``ImportStaging``, so a
/// `../x`, a link or a device is refused by the tar rules, in their words.
struct PayloadReader {
    /// The payload's bytes.
    let source: XarMemberSource
    /// What `PackageInfo` declares.
    let declared: ProductArchiveSource.Declared
    /// `<package>: <component>/Payload`, for messages.
    let display: String

    /// Streams every member into `staging`.
    func read(into staging: inout ImportStaging) throws(ImportError) {
        var reader: ArchiveReader
        do { reader = try ArchiveReader(source: source, displayPath: display, format: .cpioGzip) } catch {
            throw ProductArchiveSource.unreadable(display, error)
        }
        var entries = 0
        var declaredBytes: Int64 = 0
        while true {
            let found: ArchiveEntryHeader?
            do { found = try reader.nextHeader() } catch { throw ProductArchiveSource.unreadable(display, error) }
            guard var header = found else { return }
            let origin = "\(display): \(header.path)"
            entries += 1
            if let limit = declared.numberOfFiles, entries > limit {
                throw .refused([ImportNote(
                    .refused, entry: origin,
                    reason: "the payload holds more than the \(limit) entries its PackageInfo declares (numberOfFiles); the package is damaged or hostile")])
            }
            if header.kind == .regular {
                declaredBytes += max(header.size, 0)
                if let kilobytes = declared.installKBytes, declaredBytes > kilobytes * 1024 {
                    throw .refused([ImportNote(
                        .refused, entry: origin,
                        reason: "the payload is larger than the \(kilobytes) KiB its PackageInfo declares (installKBytes); the package is damaged or hostile")])
                }
            }
            if header.pathBytes == [UInt8(ascii: ".")] || header.pathBytes == Array("./".utf8) { continue }
            if header.pathBytes.starts(with: Array("./".utf8)) { header.pathBytes.removeFirst(2) }
            try staging.add(header, origin: origin) { sink throws(ImportError) in
                while true {
                    let block: UnsafeRawBufferPointer
                    do throws(ArchiveError) { block = try reader.readBlock() } catch { throw ProductArchiveSource.unreadable(origin, error) }
                    if block.isEmpty { return }
                    try sink.write(block)
                }
            }
        }
    }
}
