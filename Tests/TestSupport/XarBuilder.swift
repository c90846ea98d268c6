public import Foundation

/// Writes xar archives byte by byte, for the members libarchive's writer will not store: names with `..`,
/// a leading `/`, or a declared size that lies.
///
/// The format (the xar specification, `xar/include/xar.h.in` of the xar project, and libarchive's
/// `archive_read_support_format_xar.c`): a 28-byte big-endian header — magic `xar!`, header size (28),
/// version (1), compressed and uncompressed length of the table of contents, checksum algorithm
/// (0, none, here) — then the table of contents, an XML document compressed with zlib, then the heap,
/// where each file's `<data>` gives its `<offset>` (from the heap's start), `<length>` (bytes stored),
/// `<size>` (bytes extracted) and `<encoding style="application/octet-stream"/>` (stored as is).
/// The zlib stream is made of stored (uncompressed) deflate blocks, which every inflater reads.
public struct XarBuilder: Sendable {
    /// One member: a flat `<file>` whose `<name>` is the whole path.
    public struct Member: Sendable {
        /// The name exactly as stored in the table of contents (XML-escaped when written).
        public var name: String
        /// `file`, `directory`, `symlink`, `hardlink`, `fifo`, `character special`, `block special`.
        public var type: String
        /// The data (files only).
        public var data: Data
        /// The extracted size declared in `<size>`; `nil` means the data's length.
        public var declaredSize: Int?
        /// Link target (symlinks).
        public var link: String?
    }

    /// Members in archive order.
    public var members: [Member] = []

    /// An empty archive.
    public init() {}

    /// Appends a file.
    public mutating func file(_ name: String, _ data: Data, declaredSize: Int? = nil) {
        members.append(Member(name: name, type: "file", data: data, declaredSize: declaredSize))
    }

    /// Appends a directory.
    public mutating func directory(_ name: String) {
        members.append(Member(name: name, type: "directory", data: Data()))
    }

    /// Appends a symbolic link.
    public mutating func symlink(_ name: String, target: String) {
        members.append(Member(name: name, type: "symlink", data: Data(), link: target))
    }

    /// The archive's bytes.
    public func data() -> Data {
        var heap = Data()
        var files = ""
        for (index, member) in members.enumerated() {
            files += "<file id=\"\(index + 1)\"><name>\(Self.escaped(member.name))</name><type>\(member.type)</type>"
            files += "<mode>0\(member.type == "directory" ? "755" : "644")</mode><uid>0</uid><gid>0</gid>"
            if let link = member.link { files += "<link type=\"file\">\(Self.escaped(link))</link>" }
            if member.type == "file" {
                files += "<data><length>\(member.data.count)</length><offset>\(heap.count)</offset>"
                files += "<size>\(member.declaredSize ?? member.data.count)</size>"
                files += "<encoding style=\"application/octet-stream\"/></data>"
                heap += member.data
            }
            files += "</file>"
        }
        let toc = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <xar><toc><creation-time>2000-01-01T00:00:00</creation-time>\(files)</toc></xar>
            """.utf8)
        let compressed = Self.zlibStored(toc)
        var header = Data("xar!".utf8)
        header += Self.bigEndian(UInt16(28)) + Self.bigEndian(UInt16(1))
        header += Self.bigEndian(UInt64(compressed.count)) + Self.bigEndian(UInt64(toc.count)) + Self.bigEndian(UInt32(0))
        return header + compressed + heap
    }

    /// Writes the archive to `url`.
    public func write(to url: URL) throws {
        try data().write(to: url)
    }

    /// A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951 §3.2.4) holding `data`.
    static func zlibStored(_ data: Data) -> Data {
        var out = Data([0x78, 0x01])
        let bytes = [UInt8](data)
        var offset = 0
        repeat {
            let count = min(65_535, bytes.count - offset)
            let final: UInt8 = offset + count == bytes.count ? 1 : 0
            out.append(final)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += bytes[offset..<offset + count]
            offset += count
        } while offset < bytes.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.bigEndian) { Data($0) }
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
