import Crypto

/// What the signed timestamp says of the snapshot tree (`"snapshot_tree": {"root", "fanout", "leaves"}`): the
/// root node's SHA-256, the number of children per node and the number of leaves. A field python-tuf keeps as it
/// is (it signs and verifies unknown fields with the rest), so the standard client reads the same timestamp.
package struct SnapshotTreeReference: Sendable, Equatable {
    /// The largest fanout accepted: 65 536 (four billion leaves in two levels).
    package static let largestFanout = 1 << 16

    /// Lowercase hex SHA-256 of the root node's file.
    package var root: String
    /// Children per node, at least 2.
    package var fanout: Int
    /// Leaves in the tree.
    package var leaves: Int

    /// A reference to the tree rooted at `root`.
    package init(root: String, fanout: Int, leaves: Int) {
        self.root = root
        self.fanout = fanout
        self.leaves = leaves
    }

    /// Reads `{"root", "fanout", "leaves"}`.
    package init(_ fields: MetadataFields) throws(MetadataError) {
        root = try fields.hex("root", length: 64)
        let fanout = try fields.integer("fanout", minimum: 2)
        guard fanout <= Int64(Self.largestFanout) else {
            throw fields.invalid("fanout", "is \(fanout), more than \(Self.largestFanout)")
        }
        self.fanout = Int(fanout)
        leaves = Int(try fields.integer("leaves", minimum: 1))
    }

    /// The reference as the timestamp holds it.
    package var json: JSONValue { ["root": .string(root), "fanout": .integer(Int64(fanout)), "leaves": .integer(Int64(leaves))] }

    /// How many levels of nodes lie between the root and a leaf, the root and the leaf page included.
    package var depth: Int {
        var covered = fanout
        var depth = 1
        while covered < leaves {
            covered = covered.multipliedReportingOverflow(by: fanout).overflow ? Int.max : covered * fanout
            depth += 1
        }
        return depth
    }

    /// The leaf at `index`: read from the root down, each node fetched by `node(sha256)` (its file's bytes, `nil`
    /// when missing) and checked against the hash its parent (or the timestamp) gives.
    ///
    /// - Throws: ``MetadataError`` naming the node that is missing, does not hash to what its parent says, or is
    ///   not a node of the expected kind and size.
    package func leaf(at index: Int, node: (String) -> [UInt8]?) throws(MetadataError) -> SnapshotTree.Leaf {
        let role = "snapshot tree"
        guard (0..<leaves).contains(index) else {
            throw .invalidField(role: role, field: "leaf \(index)", problem: "is outside the tree's \(leaves) leaves")
        }
        var hash = root
        var level = depth
        while true {
            guard let bytes = node(hash) else {
                throw .invalidField(role: role, field: "node \(hash)", problem: "is missing from the repository")
            }
            guard Hex.string(SHA256.hash(data: bytes)) == hash else {
                throw .invalidField(role: role, field: "node \(hash)", problem: "does not hash to the SHA-256 its parent names")
            }
            let parsed: JSONValue
            do { parsed = try JSONParser.parse(bytes) } catch { throw .syntax(role: "\(role) node \(hash)", detail: error.description) }
            let fields = try MetadataFields(parsed, role: role, path: "node \(hash)")
            var span = 1
            for _ in 1..<level { span *= fanout }
            let slot = (index / span) % fanout
            if level == 1 {
                guard case .array(let entries) = try fields.value("leaves"), entries.count <= fanout, slot < entries.count,
                      case .array(let pair) = entries[slot], pair.count == 2, case .string(let name) = pair[0],
                      case .integer(let version) = pair[1], version >= 1
                else {
                    throw fields.invalid("leaves", "has no [name, version] pair at \(slot) of at most \(fanout)")
                }
                return SnapshotTree.Leaf(name: name, version: version)
            }
            guard case .array(let children) = try fields.value("children"), children.count <= fanout, slot < children.count,
                  case .string(let child) = children[slot], child.utf8.count == 64, Hex.isLowercaseHex(child)
            else {
                throw fields.invalid("children", "has no SHA-256 at \(slot) of at most \(fanout)")
            }
            hash = child
            level -= 1
        }
    }
}
