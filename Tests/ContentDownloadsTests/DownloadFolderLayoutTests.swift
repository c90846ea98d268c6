import Foundation
import Testing

/// `Sources/ContentDownloads` is laid out by stage: a later stage uses an earlier one's types, never the other way
/// round. A type's folder is where it is declared at the top level; a folder depends on another when one of its
/// files names a type declared there, or calls a function another folder adds to one of its types.
@Suite struct DownloadFolderLayoutTests {
    static let module = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ContentDownloads")

    /// Each Swift file's folder (relative to the module) and its text without line comments.
    static func files() throws -> [(folder: String, text: String)] {
        var files: [(String, String)] = []
        let walker = FileManager.default.enumerator(at: module, includingPropertiesForKeys: nil)
        while let file = walker?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let folder = file.deletingLastPathComponent().path.dropFirst(module.path.count).trimmingCharacters(in: ["/"])
            let text = try String(contentsOf: file, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.firstRange(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
                .joined(separator: "\n")
            files.append((folder.isEmpty ? "." : folder, text))
        }
        return files
    }

    /// Folder → folder it uses → one type or function that makes it so.
    static func folderUses() throws -> [String: [String: String]] {
        let files = try Self.files()
        #expect(files.count > 100, "read \(files.count) files under \(Self.module.path)")
        var home: [String: String] = [:]
        let declaration = /(?m)^(?:(?:public|package|internal|private|fileprivate|final|nonisolated|indirect)\s+)*(?:struct|class|enum|actor|protocol|typealias)\s+([A-Z]\w*)/
        for (folder, text) in files {
            for match in text.matches(of: declaration) where home[String(match.1)] == nil { home[String(match.1)] = folder }
        }
        // Functions too: a file of one folder that extends a type of another adds functions to it; when the type's own
        // folder calls one of them (unqualified, from inside the type), that folder depends on the extending one — a
        // dependency no type name shows. Only names declared in that one folder count.
        var functionFolders: [String: Set<String>] = [:]
        for (folder, text) in files {
            for match in text.matches(of: /func\s+(\w+)\s*[(<]/) { functionFolders[String(match.1), default: []].insert(folder) }
        }
        var addedTo: [String: [String: String]] = [:]  // type's folder → function name → folder that adds it
        for (folder, text) in files {
            let extended = text.matches(of: /(?m)^extension\s+(\w+)/).compactMap { home[String($0.1)] }.filter { $0 != folder }
            guard let owner = extended.first else { continue }
            for match in text.matches(of: /func\s+(\w+)\s*[(<]/) where functionFolders[String(match.1)] == [folder] {
                addedTo[owner, default: [:]][String(match.1)] = folder
            }
        }
        var uses: [String: [String: String]] = [:]  // folder → folder it uses → one type or function that makes it so
        for (folder, text) in files {
            let words = Set(text.matches(of: /\b[A-Z]\w*\b/.wordBoundaryKind(.simple)).map { String($0.0) })
            for word in words {
                guard let other = home[word], other != folder else { continue }
                uses[folder, default: [:]][other] = uses[folder]?[other] ?? word
            }
            let calls = Set(text.matches(of: /\b(\w+)\(/.wordBoundaryKind(.simple)).map { String($0.1) })
            for call in calls {
                guard let other = addedTo[folder]?[call], other != folder else { continue }
                uses[folder, default: [:]][other] = uses[folder]?[other] ?? call + "()"
            }
        }
        return uses
    }

    @Test func noTwoFoldersDependOnEachOtherBothWays() throws {
        let uses = try Self.folderUses()
        var cycles: [String] = []
        for (folder, used) in uses {
            for (other, type) in used where folder < other {
                if let back = uses[other]?[folder] { cycles.append("\(folder) uses \(type), \(other) uses \(back)") }
            }
        }
        #expect(cycles.isEmpty, "folders that depend on each other both ways: \(cycles.sorted())")
    }

    /// The folders form no cycle of any length either (`Fetch` → `Store` → `Ledger` → `Fetch` was one, through the
    /// HTTP validator the ledger journals): so they have an order, and a download walks it forward — the queue
    /// plans, the driver runs the fetch, the fetch places, the commit swaps in — with no call back into a folder it
    /// came through.
    @Test func theFoldersHaveAnOrder() throws {
        let uses = try Self.folderUses()
        var done: Set<String> = [], path: [String] = [], cycle: [String]?
        func visit(_ folder: String) {
            if let at = path.firstIndex(of: folder) {
                cycle = cycle ?? Array(path[at...]) + [folder]
                return
            }
            guard !done.contains(folder) else { return }
            path.append(folder)
            for next in (uses[folder] ?? [:]).keys.sorted() { visit(next) }
            path.removeLast()
            done.insert(folder)
        }
        for folder in uses.keys.sorted() { visit(folder) }
        let shown = cycle.map { names in
            zip(names, names.dropFirst()).map { "\($0) uses \(uses[$0]?[$1] ?? "?") of \($1)" }.joined(separator: "; ")
        }
        #expect(cycle == nil, "the folders depend on each other in a cycle: \(shown ?? "")")
        // The download's own stages, in the order a download walks them: none uses one before it.
        let stages = ["Queue", "Drive", "Fetch", "Commit", "Place", "Plan"]
        for (index, stage) in stages.enumerated() {
            for earlier in stages[..<index] {
                #expect(uses[stage]?[earlier] == nil, "\(stage) uses \(uses[stage]?[earlier] ?? "") of \(earlier), an earlier stage")
            }
        }
    }

    /// A download's record changes only through the ledger's typed transitions (`Ledger/TransferRecord+*.swift`):
    /// outside `Ledger/`, no variable holding a `TransferRecord` has a field assigned, and no other folder extends
    /// the type. The variables are found as the code binds them (`var record = records[id]`, `var record = try
    /// ledger.record(id)`, `for var record in try ledger.records()`, `record: inout TransferRecord`, …), so a new writer is caught whatever it is called.
    @Test func recordFieldsAreWrittenOnlyInTheLedger() throws {
        let binding = /(?:var|inout)\s+(\w+)\s*(?::\s*(?:inout\s+)?TransferRecord\b|=\s*(?:try\s+)?(?:self\.)?(?:records\[|ledger\.record\()|in\s+(?:try\s+)?(?:\w+\.)*(?:ledger\.)?records\(\))/
        let parameter = /(\w+):\s*inout\s+TransferRecord\b/
        var offenders: [String] = []
        for (folder, text) in try Self.files() where folder != "Ledger" {
            var names = Set(text.matches(of: binding).map { String($0.1) })
            names.formUnion(text.matches(of: parameter).map { String($0.1) })
            for line in text.split(separator: "\n") {
                if line.contains("extension TransferRecord") { offenders.append("\(folder): \(line.trimmingCharacters(in: .whitespaces))") }
                for match in line.matches(of: /\b(\w+)\.(\w+)\s*(?:=|\+=|-=)(?!=)/.wordBoundaryKind(.simple)) where names.contains(String(match.1)) {
                    offenders.append("\(folder): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(offenders.isEmpty, "record fields written outside the ledger's transitions: \(offenders)")
    }

    /// A download's files under `transfers/` (partial archive, manifest, tree, plan, placed-chunks log) are deleted
    /// only when the one who decides a download's fate says so — the driver (`Drive/`), once the engine reported the
    /// stop or failure, or the queue and its plan stage before a download starts — through `Store`. The fetch (the
    /// curl thread) and the place stage report a failure and delete nothing; the one exception is the tree builder,
    /// which clears the tree it is about to build. Two deleters of one file is how a retry came to find its
    /// `transfers/<id>.update` folder gone.
    @Test func transferFilesAreDeletedOnlyByWhoDecidesTheDownload() throws {
        let deleting = /\b(?:discardTransfer|discardPartial|discardUpdate|discardManifest|discardPlan)\(/.wordBoundaryKind(.simple)
        var offenders: [String] = [], scanned = 0
        let walker = FileManager.default.enumerator(at: Self.module, includingPropertiesForKeys: nil)
        while let file = walker?.nextObject() as? URL {
            let relative = String(file.path.dropFirst(Self.module.path.count + 1))
            guard file.pathExtension == "swift", ["Fetch/", "Place/", "Commit/"].contains(where: relative.hasPrefix),
                  relative != "Place/TreeBuilder.swift"
            else { continue }
            scanned += 1
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(deleting) {
                offenders.append("\(relative): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(scanned > 40, "read \(scanned) files of Fetch/, Place/ and Commit/ under \(Self.module.path)")
        #expect(offenders.isEmpty, "transfer files deleted by the fetch or the place stage: \(offenders)")
    }

    /// The fetch (the curl thread) decodes no manifest and reads no plan: every attempt gets its checked manifest
    /// and plan from the plan stage with its request (`PlannedFetch`), so a large manifest never holds the thread
    /// every download shares.
    @Test func theFetchDecodesNoManifest() throws {
        var offenders: [String] = []
        for (folder, text) in try Self.files() where folder == "Fetch" {
            for line in text.split(separator: "\n") where line.contains("PackageManifest.decode") || line.contains("ChunkPlan.load(") {
                offenders.append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        #expect(offenders.isEmpty, "the fetch decodes a manifest or reads a plan: \(offenders)")
    }

    /// Files under the store are deleted by the stages that own them, never by the fetch, the driver, the queue or
    /// the planner: `Store` (downloads' files, installed content, the trash), `Commit` (the swap's old version),
    /// `Place` (its own staging folders) and the one primitive in `Support`. A deletion anywhere else is a second
    /// owner of a file's life, which is how a cancelled download's files came to be deleted on the curl thread.
    @Test func filesAreDeletedOnlyByTheirOwners() throws {
        let owners: Set<String> = ["Store", "Commit", "Place", "Support"]
        let deletion = /\b(?:unlink|unlinkat|rmdir|removeItem|removeTree)\(/.wordBoundaryKind(.simple)
        var offenders: [String] = []
        for (folder, text) in try Self.files() where !owners.contains(folder) {
            for line in text.split(separator: "\n") where line.contains(deletion) {
                offenders.append("\(folder): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(offenders.isEmpty, "deletions outside the stages that own the files: \(offenders)")
    }
}
