import ContentPackaging
import PropertyBased
import Testing

/// Components of a version: 1–5 numbers that fit the 9-digit limit.
private let componentsGen = Gen.uint64(in: 0...999_999_999).array(of: 1...5)

/// Reference ordering: compare numerically after padding the shorter list with zeros.
private func referenceLess(_ lhs: [UInt64], _ rhs: [UInt64]) -> Bool {
    let count = max(lhs.count, rhs.count)
    let l = lhs + Array(repeating: 0, count: count - lhs.count)
    let r = rhs + Array(repeating: 0, count: count - rhs.count)
    return l.lexicographicallyPrecedes(r)
}

@Suite("ContentVersion properties")
struct ContentVersionPropertyTests {
    @Test("dot-joined integers parse back to the same components and spelling")
    func parsesJoinedIntegers() async {
        await propertyCheck(input: componentsGen) { components in
            let text = components.map(String.init).joined(separator: ".")
            let version = ContentVersion(text)
            #expect(version?.components == components)
            #expect(version?.description == text)
        }
    }

    @Test("ordering matches numeric, zero-padded comparison; == agrees with hashing")
    func orderingIsNumeric() async {
        await propertyCheck(input: componentsGen, componentsGen) { a, b in
            let va = ContentVersion(a.map(String.init).joined(separator: "."))!
            let vb = ContentVersion(b.map(String.init).joined(separator: "."))!
            #expect((va < vb) == referenceLess(a, b))
            #expect((vb < va) == referenceLess(b, a))
            if va == vb { #expect(va.hashValue == vb.hashValue) }
        }
    }

    @Test("trailing .0 components do not change the value")
    func trailingZeros() async {
        await propertyCheck(input: componentsGen, Gen.int(in: 1...3)) { components, zeros in
            let text = components.map(String.init).joined(separator: ".")
            let padded = text + String(repeating: ".0", count: zeros)
            let a = ContentVersion(text)!
            let b = ContentVersion(padded)!
            #expect(a == b)
            #expect(Set([a, b]).count == 1)
        }
    }

    @Test("anything with a non-digit, empty component or sign is rejected")
    func rejectsMalformed() async {
        let junk = Gen.element(of: ["", "v", "-", "+", " ", "a", "..", ".", "1e3", "\u{0661}"]).map { $0! }
        await propertyCheck(input: componentsGen, junk, Gen.int(in: 0...5)) { components, insert, position in
            var parts = components.map(String.init)
            let index = min(position, parts.count)
            if insert == "." || insert == ".." {
                parts[min(index, parts.count - 1)] += insert  // creates an empty component
            } else if insert.isEmpty {
                parts.insert("", at: index)
            } else {
                parts[min(index, parts.count - 1)] = insert + parts[min(index, parts.count - 1)]
            }
            let text = parts.joined(separator: ".")
            #expect(ContentVersion(text) == nil, "\(text.debugDescription) should be rejected")
        }
    }

    @Test("known examples", arguments: [("1.10", "1.9", true), ("2", "1.99.99", true), ("1.0.1", "1", true), ("1.0", "1", false)])
    func examples(_ bigger: String, _ smaller: String, _ isGreater: Bool) {
        #expect((ContentVersion(bigger)! > ContentVersion(smaller)!) == isGreater)
    }

    @Test("rejects the documented bad spellings", arguments: ["1..2", "v1", "-1", "", "1.", ".1", "1.2.", " 1", "1234567890"])
    func rejects(_ text: String) {
        #expect(ContentVersion(text) == nil)
    }
}
