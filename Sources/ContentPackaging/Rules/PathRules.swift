/// Name rules shared by the packager (folder validation) and the client (archive header checks).
///
/// Content must unpack identically on Linux, macOS and Windows clients, so names are held to the
/// strictest of them: valid UTF-8, no control characters or `\`, components ≤ 255 bytes, paths ≤
/// 1024 bytes, and no two names equal after case folding or Unicode normalization.
public enum PathRules {
    /// Longest allowed path component, in bytes (ext4/APFS `NAME_MAX`).
    public static let maxComponentBytes = 255
    /// Longest allowed path inside a package, in bytes.
    public static let maxPathBytes = 1024

    /// Problems with one relative path given as raw bytes (`/`-separated); empty when acceptable.
    ///
    /// Checks: valid UTF-8; no NUL/control characters (C0, DEL, C1); no `\`; not absolute; no empty,
    /// `.` or `..` components; each component ≤ ``maxComponentBytes``; whole path ≤ ``maxPathBytes``.
    public static func problems(inPath bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        guard String(validating: bytes, as: UTF8.self) != nil else {
            return ["name is not valid UTF-8; rename it"]
        }
        if bytes.isEmpty { return ["empty path"] }
        if bytes.first == UInt8(ascii: "/") { problems.append("absolute path; paths must be relative") }
        if bytes.count > maxPathBytes {
            problems.append("path is \(bytes.count) bytes; the limit is \(maxPathBytes)")
        }
        let string = String(decoding: bytes, as: UTF8.self)
        if string.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            problems.append("name contains a control character; rename it")
        }
        if bytes.contains(UInt8(ascii: "\\")) {
            problems.append("name contains '\\', which Windows clients read as a separator; rename it")
        }
        let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (index, component) in components.enumerated() {
            let isTrailingSlash = index == components.count - 1 && component.isEmpty && components.count > 1
            if isTrailingSlash { continue }
            if component.isEmpty, index > 0 || bytes.first != UInt8(ascii: "/") {
                problems.append("empty path component ('//')")
            } else if component.elementsEqual(".".utf8) || component.elementsEqual("..".utf8) {
                problems.append("path contains a '\(String(decoding: component, as: UTF8.self))' component")
            } else if component.count > maxComponentBytes {
                problems.append("a name is \(component.count) bytes; the limit is \(maxComponentBytes)")
            }
        }
        return problems
    }

    /// The key two names collide under on case-insensitive or normalizing file systems.
    ///
    /// Swift `String` equality and hashing already use canonical equivalence (NFC ≡ NFD), so a
    /// `Set` of these keys catches normalization collisions; lowercasing catches case collisions.
    public static func collisionKey(_ path: String) -> String {
        path.lowercased()
    }

    /// OS litter skipped (with a note) at a package root or anywhere inside it.
    public static func isOSLitter(_ name: String) -> Bool {
        name == ".DS_Store" || name == "Thumbs.db" || name == "desktop.ini" || name.hasPrefix("._")
            || name == ".Spotlight-V100" || name == ".Trashes" || name == ".fseventsd"
    }
}
