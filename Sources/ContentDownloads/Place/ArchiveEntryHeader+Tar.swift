internal import ContentPackaging

extension ArchiveEntryHeader {
    /// The entry a ustar header and the pax records before it describe.
    init(_ header: TarHeaderBlock, overrides: [String: [UInt8]]) {
        let kind: Kind
        switch header.typeFlag {
        case 0, UInt8(ascii: "0"), UInt8(ascii: "7"): kind = .regular
        case UInt8(ascii: "5"): kind = .directory
        case UInt8(ascii: "1"): kind = .hardlink
        case UInt8(ascii: "2"): kind = .symlink
        case UInt8(ascii: "3"): kind = .characterDevice
        case UInt8(ascii: "4"): kind = .blockDevice
        case UInt8(ascii: "6"): kind = .fifo
        default: kind = .unknown(UInt32(header.typeFlag))
        }
        let size = overrides["size"].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? header.size
        let link = overrides["linkpath"] ?? header.linkName
        self.init(
            pathBytes: overrides["path"] ?? header.name, kind: kind, size: kind == .regular ? size : (kind == .directory ? size : 0),
            permissions: header.mode, linkTarget: kind == .symlink || kind == .hardlink ? String(decoding: link, as: UTF8.self) : nil)
    }
}
