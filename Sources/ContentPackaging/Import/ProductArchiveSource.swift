import Foundation
import Glibc

/// The package uploaded to App Store Connect: what `productbuild --content <folder> <out>.pkg` writes.
///
/// A xar archive (a "product archive") holding a `Distribution` (installer XML naming its component as
/// `<pkg-ref …>#<name>.pkg</pkg-ref>`) and that component, `<name>.pkg/`, with `PackageInfo` (XML whose
/// `<payload numberOfFiles="…" installKBytes="…"/>` declares the payload), `Bom` (the installer's bill of
/// materials, not read: the payload itself is checked) and `Payload`, a gzip'd cpio (odc) archive of the
/// content folder (`./ContentInfo.plist`, `./Contents/…`). A component package on its own (`PackageInfo`
/// and `Payload` at the top of the xar, what `pkgbuild` writes) is read the same way. Installer scripts
/// (`Scripts`) are code and are dropped; `Resources/` and `PlugIns/` belong to the installer's interface.
///
/// Checks, before a byte is written: every xar member's name through ``PathRules`` and its kind (regular
/// files and folders only); then, entry by entry, every cpio member through ``ImportStaging`` (the tar
/// rules), the entry count against `numberOfFiles` and the file bytes against `installKBytes` × 1024
/// (pkgbuild rounds each file up to 512-byte blocks, so real payloads never exceed it); a `PackageInfo` that
/// declares neither is refused, since nothing but the importer's size cap would then bound the payload. Payloads that
/// newer tools compress with pbzx are refused with a message: libarchive 3.6 does not read pbzx.
enum ProductArchiveSource {
    /// Largest `Distribution` or `PackageInfo` read.
    static let maxDocumentBytes = 1 << 20

    /// Whether the file at `path` starts with the xar magic `xar!`.
    static func matches(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data("xar!".utf8)
    }

    /// What the first pass over the xar's table of contents found.
    private struct Members {
        var names: Set<String> = []
        var distribution: String?
        var packageInfos: [String: String] = [:]
    }

    /// What `PackageInfo` declares about the payload.
    struct Declared: Equatable {
        var numberOfFiles: Int?
        var installKBytes: Int64?
    }

    /// Reads the package at `url` into `staging`.
    static func read(_ url: URL, into staging: inout ImportStaging) throws(ImportError) {
        let name = url.lastPathComponent
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadableSource(path: url.path, reason: "cannot be opened (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        let members = try listMembers(fd: fd, name: name)
        let component = try component(of: members, name: name)
        let declared = declaredPayload(members.packageInfos[component + "PackageInfo"] ?? "")
        guard declared.numberOfFiles != nil, declared.installKBytes != nil else {
            throw .refused([ImportNote(
                .refused, entry: name + ": " + component + "PackageInfo",
                reason: "declares no payload size (<payload numberOfFiles=\"…\" installKBytes=\"…\"/>, which pkgbuild and productbuild always write), so the payload cannot be held to it; expand the package on a Mac (pkgutil --expand-full) and import the folder, or rebuild it with productbuild")])
        }
        if members.names.contains(component + "Scripts") {
            staging.dropScripts(name + ": " + component + "Scripts")
        }
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw .unreadableSource(path: url.path, reason: "cannot be read again (seek failed)") }
        var outer: ArchiveReader
        do { outer = try ArchiveReader(fileDescriptor: fd, displayPath: name, format: .xar) } catch {
            throw .unreadableSource(path: url.path, reason: "is not a readable xar archive (\(error.message))")
        }
        let payloadName = component + "Payload"
        while true {
            let header: ArchiveEntryHeader?
            do { header = try outer.nextHeader() } catch { throw unreadable(name, error) }
            guard let header else { throw .unreadableSource(path: url.path, reason: "lost its member \(payloadName) between two reads") }
            if header.path == payloadName { break }
        }
        let source = XarMemberSource(outer, display: "\(name): \(payloadName)")
        try PayloadReader(source: source, declared: declared, display: "\(name): \(payloadName)").read(into: &staging)
    }

    /// Pass 1: every member's name and kind checked, the two small documents read.
    private static func listMembers(fd: Int32, name: String) throws(ImportError) -> Members {
        var reader: ArchiveReader
        do { reader = try ArchiveReader(fileDescriptor: fd, displayPath: name, format: .xar) } catch {
            throw .unreadableSource(path: name, reason: "is not a readable xar archive (\(error.message))")
        }
        var members = Members()
        var refusals: [ImportNote] = []
        while true {
            let found: ArchiveEntryHeader?
            do { found = try reader.nextHeader() } catch { throw unreadable(name, error) }
            guard let header = found else { break }
            let origin = "\(name): \(header.path)"
            let problems = PathRules.problems(inPath: header.pathBytes)
            if !problems.isEmpty {
                refusals.append(ImportNote(.refused, entry: origin, reason: ArchiveLayoutRefusal.unsafeName(problems).reason(kind: header.kind, linkTarget: nil)))
                continue
            }
            if header.kind != .regular, header.kind != .directory {
                refusals.append(ImportNote(
                    .refused, entry: origin,
                    reason: ArchiveLayoutRefusal.unsupportedKind(header.kind).reason(kind: header.kind, linkTarget: header.linkTarget)))
                continue
            }
            let path = header.path.hasSuffix("/") ? String(header.path.dropLast()) : header.path
            members.names.insert(path)
            if path == "Distribution" {
                members.distribution = try readDocument(&reader, origin: origin)
            } else if path == "PackageInfo" || path.hasSuffix(".pkg/PackageInfo") {
                members.packageInfos[path] = try readDocument(&reader, origin: origin)
            }
        }
        if !refusals.isEmpty { throw .refused(refusals) }
        return members
    }

    /// The component's prefix in the xar (`<name>.pkg/`, or empty for a component package on its own).
    private static func component(of members: Members, name: String) throws(ImportError) -> String {
        guard let distribution = members.distribution else {
            guard members.names.contains("Payload") else {
                throw .unreadableSource(
                    path: name, reason: "holds neither a Distribution nor a Payload; it is not a productbuild or pkgbuild package")
            }
            return ""
        }
        var components: [String] = []
        for element in InstallerXML.elements(named: "pkg-ref", in: distribution) {
            let text = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("#") else { continue }
            let component = String(text.dropFirst()).removingPercentEncoding ?? String(text.dropFirst())
            if !components.contains(component) { components.append(component) }
        }
        guard components.count == 1, let component = components.first else {
            throw .unreadableSource(
                path: name,
                reason: components.isEmpty
                    ? "its Distribution names no component package (<pkg-ref>#name.pkg</pkg-ref>)"
                    : "its Distribution names \(components.count) component packages (\(components.joined(separator: ", "))); a content package has one")
        }
        guard members.names.contains(component + "/Payload") else {
            throw .unreadableSource(path: name, reason: "its Distribution names \(component), which holds no Payload")
        }
        return component + "/"
    }

    /// The payload's declared entry count and size, from a `PackageInfo` document.
    static func declaredPayload(_ packageInfo: String) -> Declared {
        guard let payload = InstallerXML.elements(named: "payload", in: packageInfo).first else { return Declared() }
        return Declared(
            numberOfFiles: payload.attributes["numberOfFiles"].flatMap { Int($0) },
            installKBytes: payload.attributes["installKBytes"].flatMap { Int64($0) })
    }

    /// The current member's bytes as text, at most ``maxDocumentBytes``.
    private static func readDocument(_ reader: inout ArchiveReader, origin: String) throws(ImportError) -> String {
        var bytes: [UInt8] = []
        while true {
            let block: UnsafeRawBufferPointer
            do { block = try reader.readBlock() } catch { throw unreadable(origin, error) }
            if block.isEmpty { break }
            bytes += block
            guard bytes.count <= maxDocumentBytes else {
                throw .refused([ImportNote(.refused, entry: origin, reason: "is larger than \(maxDocumentBytes) bytes; installer XML is a few KiB")])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func unreadable(_ origin: String, _ error: ArchiveError) -> ImportError {
        .unreadableSource(path: origin, reason: "cannot be read (\(error.message)); the package is damaged or hostile")
    }
}

extension ImportStaging {
    /// Notes that a component's installer scripts were left out.
    mutating func dropScripts(_ origin: String) {
        note(ImportNote(.dropped, entry: origin, reason: "installer scripts are code, not content; never imported"))
    }
}
