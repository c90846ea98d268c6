import Foundation
import Testing

/// The docs name what the code does: every thread the code starts is in ARCHITECTURE.md's thread list (and
/// nothing else is), and the README lists exactly the notifications the daemon sends.
@Suite struct DocumentationDriftTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every `"iap-…"` string literal in the Swift sources under `folder`.
    static func threadNames(in folder: URL) throws -> Set<String> {
        var names = Set<String>()
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: /"(iap-[a-z-]+)"/) { names.insert(String(match.1)) }
        }
        return names
    }

    @Test func everyThreadTheCodeNamesIsInTheArchitecturesThreadList() throws {
        let code = try Self.threadNames(in: Self.root.appendingPathComponent("Sources"))
        #expect(code.contains("iap-curl") && code.count >= 10, "\(code)")
        let architecture = try String(contentsOf: Self.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let list = try #require(architecture.firstRange(of: "Every thread we start has a kernel-visible name"))
        let end = try #require(architecture[list.upperBound...].firstRange(of: "\n2. "))
        let documented = Set(architecture[list.lowerBound..<end.lowerBound].matches(of: /`(iap-[a-z-]+)`/).map { String($0.1) })
        #expect(code.subtracting(documented).isEmpty, "threads the code starts but the list lacks: \(code.subtracting(documented).sorted())")
        #expect(documented.subtracting(code).isEmpty, "threads the list names but the code never starts: \(documented.subtracting(code).sorted())")
    }

    @Test func theReadmeListsExactlyTheNotificationsTheDaemonSends() throws {
        let forwarder = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/ContentDaemon/Service/NotificationForwarder.swift"), encoding: .utf8)
        let sent = Set(forwarder.matches(of: /broadcast\(&sequence, "([a-z]+(?:\.[a-z]+)?)"/).map { String($0.1) })
        #expect(sent.contains("download.progress") && sent.contains("transaction"), "\(sent)")
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.firstRange(of: "after `subscribe` it pushes"))
        let end = try #require(readme[start.upperBound...].firstRange(of: "Errors are JSON-RPC errors"))
        let listed = Set(readme[start.upperBound..<end.lowerBound].matches(of: /`([a-z]+(?:\.[a-z]+)?)`/).map { String($0.1) })
            .subtracting(["code", "message", "contentURL"])
        #expect(listed == sent, "README lists \(listed.sorted()); the daemon sends \(sent.sorted())")
    }
}
