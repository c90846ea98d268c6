import ContentPackaging

/// The target paths of a product's archive and manifest, chosen so that both fall in the same hashed bin.
///
/// Why: a bin is picked by the leading bits of SHA-256 of a target's path, so `<id>/<id>.tar.zst` and
/// `<id>/<id>.manifest` fall in two bins for all but one product in 2^N. A publish would then rewrite two bins and
/// the snapshot-tree pages over both, and a first install would fetch two bins. Each path may therefore carry a
/// number, `<id>/<id>.<k>.tar.zst` and `<id>/<id>.<k>.manifest` (k ≥ 1; k = 0 is the plain path; in the name, not
/// a folder, since a million products' extra folders would double the time `repo add` spends in the file system), and
/// the pair is the first whose bins agree in a search anyone repeats from the product ID and the bit length alone:
/// archive 0, manifest 0, archive 1, manifest 1, …, each new path checked against every path of the other kind so
/// far. That is a birthday search, about √(π·2^N) hashes of short paths (some 230 at N = 14, tens of microseconds),
/// where making one fixed path meet the other's bin would take 2^N. A search that finds no pair by
/// ``searchLimit`` keeps the plain paths. With no bins (N = 0) every pair agrees: the plain paths.
///
/// The manifest of a product whose manifest is JSON is `<id>/<id>.<k>.manifest.json`, the same k; its bin may differ.
package struct ProductTargetPaths: Sendable, Equatable {
    /// The product.
    package var productID: String
    /// The number in the archive's path, 0 for none.
    package var archiveNumber: Int
    /// The number in the manifest's path, 0 for none.
    package var manifestNumber: Int

    /// How far each kind's numbers go before the search gives up and keeps the plain paths (at N = 14 the chance of
    /// getting there is e^-(2^20), at N = 32 about e^-4).
    package static let searchLimit = 1 << 17

    /// The paths of `productID` in a repository whose bins read `bitLength` bits (0: no bins).
    package init(productID: String, bitLength: Int) {
        self.productID = productID
        (archiveNumber, manifestNumber) = Self.search(productID: productID, bitLength: bitLength)
    }

    /// The paths of `productID` with the numbers a search found earlier.
    package init(productID: String, archiveNumber: Int, manifestNumber: Int) {
        self.productID = productID
        self.archiveNumber = archiveNumber
        self.manifestNumber = manifestNumber
    }

    /// The archive's target path.
    package var archive: String { Self.path(productID, archiveNumber, ".tar.zst") }

    /// The manifest's target path: `.manifest`, or `.manifest.json` for a JSON manifest.
    package func manifest(json: Bool = false) -> String {
        Self.path(productID, manifestNumber, json ? ".manifest.json" : ".manifest")
    }

    /// `<id>/<id><suffix>` for number 0, else `<id>/<id>.<number><suffix>`.
    static func path(_ productID: String, _ number: Int, _ suffix: String) -> String {
        number == 0 ? "\(productID)/\(productID)\(suffix)" : "\(productID)/\(productID).\(number)\(suffix)"
    }

    /// The first agreeing pair of numbers, in the order the type's documentation gives.
    static func search(productID: String, bitLength: Int) -> (archive: Int, manifest: Int) {
        guard bitLength > 0 else { return (0, 0) }
        let shift = UInt32(32 - bitLength)
        // Hashing `<id>/<id>` once: each path continues a copy of that stream.
        var prefix = SHA256Stream()
        Array("\(productID)/\(productID)".utf8).withUnsafeBytes { prefix.update($0) }
        let archiveSuffix = Array(".tar.zst".utf8), manifestSuffix = Array(".manifest".utf8)
        // The rest of a path, `.<number><suffix>`, made in one buffer that never grows: a million products take some
        // 230 million of them, so no string is made per path.
        var tail = [UInt8](repeating: 0, count: 32)
        func bin(_ number: Int, _ suffix: [UInt8]) -> UInt32 {
            var count = 0
            if number > 0 {
                var digits = 0, rest = number
                while rest > 0 { digits += 1; rest /= 10 }
                tail[0] = UInt8(ascii: ".")
                rest = number
                for position in stride(from: digits, to: 0, by: -1) {
                    tail[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                count = digits + 1
            }
            for byte in suffix {
                tail[count] = byte
                count += 1
            }
            var stream = prefix
            tail.withUnsafeBytes { stream.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            return stream.finishLeadingWord() >> shift
        }
        // Which bins each kind has reached, as a filter of up to 2^16 bits over a bin's leading bits (exact up to
        // N = 16), confirmed in the list.
        let filterBits = min(bitLength, 16)
        var seen = (archive: [UInt64](repeating: 0, count: max(1, (1 << filterBits) / 64)), manifest: [UInt64](repeating: 0, count: max(1, (1 << filterBits) / 64)))
        var bins = (archive: [UInt32](), manifest: [UInt32]())
        bins.archive.reserveCapacity(256)
        bins.manifest.reserveCapacity(256)
        func slot(_ bin: UInt32) -> (word: Int, bit: UInt64) {
            let key = Int(bin >> UInt32(bitLength - filterBits))
            return (key >> 6, 1 << UInt64(key & 63))
        }
        for number in 0..<searchLimit {
            let archive = bin(number, archiveSuffix)
            let a = slot(archive)
            if seen.manifest[a.word] & a.bit != 0, let match = bins.manifest.firstIndex(of: archive) { return (number, match) }
            seen.archive[a.word] |= a.bit
            bins.archive.append(archive)
            let manifest = bin(number, manifestSuffix)
            let m = slot(manifest)
            if seen.archive[m.word] & m.bit != 0, let match = bins.archive.firstIndex(of: manifest) { return (match, number) }
            seen.manifest[m.word] |= m.bit
            bins.manifest.append(manifest)
        }
        return (0, 0)
    }
}
