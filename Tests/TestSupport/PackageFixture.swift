public import Foundation

/// Builds small content folders (`ContentInfo.plist` + `Contents/`) for tests.
public enum PackageFixture {
    /// An Xcode-shaped XML `ContentInfo.plist` (with a `Folder` key).
    public static func xmlContentInfo(productID: String = "com.example.test", version: String = "1.0", extraKeys: [String: Any] = [:]) -> Data {
        let plist: [String: Any] = ["ContentVersion": version, "IAPProductIdentifier": productID, "Folder": "Contents"]
            .merging(extraKeys) { $1 }
        return try! PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    }

    /// A binary `ContentInfo.plist` with arbitrary key values (`nil` values are left out).
    public static func binaryContentInfo(_ values: [String: String?]) -> Data {
        let plist = values.compactMapValues { $0 }
        return try! PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    /// Creates a valid package at `root` holding `files` (paths under `Contents/`, any content); `extraKeys` go into
    /// its `ContentInfo.plist` (`Packs`, `Variants`).
    @discardableResult
    public static func make(
        at root: URL, productID: String = "com.example.test", version: String = "1.0",
        files: [String: Data] = ["Contents/hello.txt": Data("hello\n".utf8)], extraKeys: [String: Any] = [:]
    ) throws -> URL {
        let manager = FileManager.default
        try manager.createDirectory(at: root.appendingPathComponent("Contents"), withIntermediateDirectories: true)
        try xmlContentInfo(productID: productID, version: version, extraKeys: extraKeys).write(to: root.appendingPathComponent("ContentInfo.plist"))
        for (path, data) in files.sorted(by: { $0.key < $1.key }) {
            let url = root.appendingPathComponent(path)
            try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        return root
    }

    /// `count` bytes of words drawn by `seed` (xorshift), for content that compresses several times, as text does.
    public static func text(count: Int, seed: UInt64) -> Data {
        let words = ["tile", "grass", "water", "stone", "castle", "level", "enemy", "coin", "door", "key", "gate", "quest"]
        var state = seed | 1
        var out = ""
        while out.utf8.count < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            out += words[Int(state % UInt64(words.count))] + (state % 11 == 0 ? "\n" : " ")
        }
        return Data(out.utf8.prefix(count))
    }

    /// `count` small JSON records of 2–5 KiB, each holding one of eight shared blocks (1 KiB of base64 that compresses
    /// poorly on its own, like a schema or a licence text) and words of its own: the shape of a game's level and item
    /// data, where a dictionary trained on the files gives every small frame the history it lacks.
    public static func sharedBlockRecords(count: Int, seed: UInt64 = 1) -> [String: Data] {
        let shared = (0..<8).map { bytes(count: 1024, seed: seed &* 31 &+ UInt64($0)).base64EncodedString() }
        var files: [String: Data] = [:]
        for index in 0..<count {
            let words = String(decoding: text(count: 400 + (index * 131) % 2600, seed: seed &+ UInt64(index)), as: UTF8.self)
            let json = """
                {"id": \(index), "kind": "\(["level", "item", "enemy", "quest"][index % 4])", "title": "entry \(index)",
                 "schema": "\(shared[index % shared.count])",
                 "spawn": {"x": \(index * 7 % 300), "y": \(index * 13 % 200), "layer": "foreground"},
                 "description": "\(words)"}
                """
            files[String(format: "Contents/data/%02d/record-%04d.json", index % 20, index)] = Data(json.utf8)
        }
        return files
    }

    /// Deterministic pseudo-random bytes (xorshift), for incompressible content.
    public static func bytes(count: Int, seed: UInt64) -> Data {
        var state = seed | 1
        var data = Data(capacity: count)
        for _ in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            data.append(UInt8(truncatingIfNeeded: state))
        }
        return data
    }
}
