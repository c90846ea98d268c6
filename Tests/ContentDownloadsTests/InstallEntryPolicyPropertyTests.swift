import ContentDownloads
import ContentPackaging
import PropertyBased
import Testing

/// Random header sequences from an alphabet of dangerous and colliding components: whatever the
/// policy accepts stays inside the layout, contains no `.`/`..`/empty/`\` component, and no two
/// accepted entries (or implied parents) collide.
@Suite("Install: entry policy properties")
struct InstallEntryPolicyPropertyTests {
    static let first = ["Contents", "Contents", "Contents", "Contents", "ContentInfo.plist", "contents", "..", "", "/"]
    static let rest = ["a", "a", "A", "b", "caf\u{E9}", "cafe\u{301}", "..", ".", "", "x\\y", "C:", "\u{1}"]

    @Test func acceptedEntriesAreInsideTheLayoutAndNeverCollide() async {
        let path = zip(Gen.element(of: Self.first), Gen.element(of: Self.rest).array(of: 0...3)).map { [$0] + $1 }
        await propertyCheck(input: path.array(of: 1...12), Gen.element(of: [true, false, false]).array(of: 12)) { paths, kinds in
            var policy = EntryPolicy(limits: InstallLimits(maxTotalBytes: 1 << 20, maxEntries: 1000))
            var accepted: [PlannedEntry] = []
            for (index, parts) in paths.enumerated() {
                let text = parts.map { $0 ?? "" }.joined(separator: "/")
                let isDirectory = kinds[index] ?? false
                let header = ArchiveEntryHeader(
                    pathBytes: Array(text.utf8), kind: isDirectory ? .directory : .regular,
                    size: isDirectory ? 0 : 1, permissions: 0o644)
                // Keep going after a refusal: more sequences explored (a refusal only makes later checks stricter).
                if let entry = try? policy.admit(header) { accepted.append(entry) }
            }
            var keys: [String: PlannedEntry] = [:]
            for entry in accepted {
                let parts = entry.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                #expect(!parts.contains("..") && !parts.contains(".") && !parts.contains(""), "\(entry.path)")
                #expect(!entry.path.contains("\\") && !entry.path.hasPrefix("/"))
                #expect(entry.path == "ContentInfo.plist" || parts.first == "Contents", "\(entry.path) outside layout")
                let key = PathRules.collisionKey(entry.path)
                #expect(keys[key] == nil, "\(entry.path) collides with \(keys[key]?.path ?? "")")
                keys[key] = entry
            }
            for entry in accepted where entry.kind == .file {
                #expect(!accepted.contains { $0.path.hasPrefix(entry.path + "/") }, "file \(entry.path) used as a directory")
                #expect(!accepted.contains { PathRules.collisionKey($0.path).hasPrefix(PathRules.collisionKey(entry.path) + "/") })
            }
        }
    }
}
