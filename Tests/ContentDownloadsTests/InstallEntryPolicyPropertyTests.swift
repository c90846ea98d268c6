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

@Suite("Install: hard caps")
struct InstallHardCapTests {
    static func header(_ path: String, size: Int64 = 1, kind: ArchiveEntryHeader.Kind = .regular) -> ArchiveEntryHeader {
        ArchiveEntryHeader(pathBytes: Array(path.utf8), kind: kind, size: size, permissions: 0o644)
    }

    @Test("a catalog cannot lift the 10-million-entry and 1 TiB caps, and its own counts hold")
    func catalogCannotLiftCaps() throws {
        let lifted = InstallLimits(maxTotalBytes: 2 << 40, maxEntries: 20_000_000)
        #expect(lifted.maxEntries == InstallLimits.maxEntriesCap && InstallLimits.maxEntriesCap == 10_000_000)
        #expect(lifted.maxTotalBytes == InstallLimits.maxTotalBytesCap && InstallLimits.maxTotalBytesCap == 1 << 40)
        var huge = EntryPolicy(limits: lifted)
        #expect(throws: InstallError.self) { try huge.admit(Self.header("Contents/huge", size: (1 << 40) + 1)) }

        let limits = InstallLimits(maxTotalBytes: 2 << 30, maxEntries: 1_000)
        var policy = EntryPolicy(limits: limits)
        _ = try policy.admit(Self.header("ContentInfo.plist"))
        var refusal: InstallError?
        for index in 1...limits.maxEntries {
            do { _ = try policy.admit(Self.header("Contents/f\(index)", size: 0)) } catch { refusal = error; break }
        }
        guard case .tooManyEntries(let declared, let found) = refusal else {
            Issue.record("expected tooManyEntries, got \(String(describing: refusal))")
            return
        }
        #expect(declared == 1_000 && found == 1_001)

        var sizes = EntryPolicy(limits: limits)
        #expect(throws: InstallError.self) { try sizes.admit(Self.header("Contents/huge", size: (2 << 30) + 1)) }
        var total = EntryPolicy(limits: limits)
        _ = try total.admit(Self.header("Contents/a", size: 1 << 30))
        _ = try total.admit(Self.header("Contents/b", size: 1 << 30))
        #expect(throws: InstallError.self) { try total.admit(Self.header("Contents/c", size: 1)) }
    }
}
