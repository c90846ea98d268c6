import ContentDownloads
import ContentPackaging
import PropertyBased
import Testing

/// Random header sequences from an alphabet of dangerous and colliding components: whatever the
/// policy accepts stays inside the layout, contains no `.`/`..`/empty/`\` component, and no two
/// accepted entries (or implied parents) collide.
@Suite("Install: entry policy properties")
struct InstallEntryPolicyPropertyTests {
    static let components = [
        "Contents", "ContentInfo.plist", "..", ".", "", "a", "A", "caf\u{E9}", "cafe\u{301}", "x\\y", "C:", "\u{1}",
    ]

    @Test func acceptedEntriesAreInsideTheLayoutAndNeverCollide() async {
        let path = Gen.element(of: Self.components).array(of: 1...5)
        await propertyCheck(input: path.array(of: 1...8), Gen.element(of: [true, false]).array(of: 8)) { paths, kinds in
            var policy = EntryPolicy(limits: InstallLimits(maxTotalBytes: 1 << 20, maxEntries: 1000))
            var accepted: [PlannedEntry] = []
            for (index, parts) in paths.enumerated() {
                let text = parts.map { $0 ?? "" }.joined(separator: "/")
                let isDirectory = kinds[index] ?? false
                let header = ArchiveEntryHeader(
                    pathBytes: Array(text.utf8), kind: isDirectory ? .directory : .regular,
                    size: isDirectory ? 0 : 1, permissions: 0o644)
                guard let entry = try? policy.admit(header) else { break }
                accepted.append(entry)
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
