import Crypto

/// The snapshot as a hash tree a client reads one path of: the leaves are the snapshot's entries (`targets.json`
/// and every bin, name and version, sorted by name), grouped `fanout` to a page; each level above lists its
/// children's SHA-256, up to one root node, whose hash the signed timestamp carries (``SnapshotTreeReference``).
///
/// Every node is a file named by its hash (`metadata/snapshot-tree/<sha256>.json`), so it never changes and a
/// publish writes only the nodes on the changed leaves' paths. With a fanout of ⌈√leaves⌉ the tree has two
/// levels: a client proves its bin's version with the root node and one leaf page, a few kilobytes whatever the
/// number of bins, instead of the whole `snapshot.json`.
package struct SnapshotTree: Sendable {
    /// One snapshot entry: a targets metadata file's name (`bins-3f.json`) and version.
    package struct Leaf: Sendable, Equatable {
        /// The file name, as the snapshot's `meta` names it.
        package var name: String
        /// Its version.
        package var version: Int64

        /// The entry for `name` at `version`.
        package init(name: String, version: Int64) {
            self.name = name
            self.version = version
        }
    }

    /// The reference the timestamp carries.
    package let reference: SnapshotTreeReference
    /// Every node's file bytes by its SHA-256.
    package let nodes: [String: [UInt8]]

    /// The tree over `meta` (a snapshot's entries).
    package init(meta: [String: MetaFile]) {
        let leaves = meta.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { Leaf(name: $0, version: meta[$0]!.version) }
        self.init(leaves: leaves)
    }

    /// The tree over `leaves`, in their order.
    package init(leaves: [Leaf]) {
        let fanout = Self.fanout(forLeaves: leaves.count)
        var nodes: [String: [UInt8]] = [:]
        func store(_ node: JSONValue) -> String {
            let bytes = node.fileBytes
            let hash = Hex.string(SHA256.hash(data: bytes))
            nodes[hash] = bytes
            return hash
        }
        var level: [String] = stride(from: 0, to: max(leaves.count, 1), by: fanout).map { start in
            let page = leaves[start..<min(start + fanout, leaves.count)]
            return store(["leaves": .array(page.map { .array([.string($0.name), .integer($0.version)]) })])
        }
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: fanout).map { start in
                store(["children": .array(level[start..<min(start + fanout, level.count)].map { .string($0) })])
            }
        }
        self.nodes = nodes
        reference = SnapshotTreeReference(root: level[0], fanout: fanout, leaves: leaves.count)
    }

    /// ⌈√count⌉, at least 2: two levels for any count.
    package static func fanout(forLeaves count: Int) -> Int {
        var root = 1
        while root * root < count { root += 1 }
        return max(2, root)
    }
}
