@testable import ContentDelivery
import Foundation
import Testing

/// The snapshot tree: every leaf is reached from the root by hashes alone; a node that does not hash to what its
/// parent names, or a leaf page that lies, is refused; a publish writes only the nodes on the changed path.
@Suite("Repository: snapshot tree")
struct SnapshotTreeTests {
    static func meta(bins: Int, bump: [Int: Int64] = [:]) -> [String: MetaFile] {
        let roles = SuccinctRoles(keys: RoleKeys(keyIDs: ["k"], threshold: 1), bitLength: bins, namePrefix: "bins")
        var meta: [String: MetaFile] = ["targets.json": MetaFile(version: 1)]
        for number in 0..<roles.binCount { meta["\(roles.binName(number)).json"] = MetaFile(version: bump[number] ?? 1) }
        return meta
    }

    @Test(arguments: [0, 1, 4, 10])
    func everyLeafIsReachedFromTheRoot(bits: Int) throws {
        let meta = bits == 0 ? ["targets.json": MetaFile(version: 3)] : Self.meta(bins: bits, bump: [1: 7])
        let tree = SnapshotTree(meta: meta)
        let names = meta.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(tree.reference.leaves == names.count && tree.reference.depth <= 2)
        for (index, name) in names.enumerated() {
            let leaf = try tree.reference.leaf(at: index) { tree.nodes[$0] }
            #expect(leaf == SnapshotTree.Leaf(name: name, version: meta[name]!.version))
        }
    }

    @Test func aChangedBinChangesOnlyItsPageAndTheRoot() {
        let before = SnapshotTree(meta: Self.meta(bins: 10))
        let after = SnapshotTree(meta: Self.meta(bins: 10, bump: [700: 2]))
        #expect(Set(after.nodes.keys).subtracting(before.nodes.keys).count == 2)
        #expect(before.reference.fanout == 33 && after.reference.root != before.reference.root)
    }

    @Test func aTamperedOrMissingNodeIsRefused() throws {
        let tree = SnapshotTree(meta: Self.meta(bins: 6))
        var nodes = tree.nodes
        guard case .object(let root)? = try? JSONParser.parse(nodes[tree.reference.root]!), case .array(let children)? = root["children"],
              case .string(let page)? = children.first
        else { Issue.record("no first page"); return }
        nodes[page] = Array(String(decoding: nodes[page]!, as: UTF8.self).replacingOccurrences(of: ",1]", with: ",9]").utf8)
        var refused = 0
        for index in 0..<tree.reference.leaves {
            do { _ = try tree.reference.leaf(at: index) { nodes[$0] } } catch {
                #expect("\(error)".contains("node \(page) does not hash"), "\(error)")
                refused += 1
            }
        }
        #expect(refused == tree.reference.fanout)
        #expect(throws: MetadataError.invalidField(
            role: "snapshot tree", field: "node \(tree.reference.root)", problem: "is missing from the repository")) {
            try tree.reference.leaf(at: 0) { _ in nil }
        }
        #expect(throws: MetadataError.self) { try tree.reference.leaf(at: tree.reference.leaves) { tree.nodes[$0] } }
    }
}
