@testable import ContentPackaging
import PropertyBased
import Testing

/// The manifest model keeps hashes as bytes but reads and writes them as hex text: every text must come back
/// exactly, and only canonical hex may be held as bytes.
@Suite("stored SHA-256")
struct StoredSHA256Tests {
    @Test("64 lowercase hex digits are held as bytes and read back the same")
    func canonicalHexRoundTrips() async {
        await propertyCheck(input: Gen.uint8().array(of: 32)) { bytes in
            let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            let stored = StoredSHA256(hex)
            guard case .digest = stored else {
                Issue.record("\(hex) not held as bytes")
                return
            }
            #expect(stored.text == hex)
        }
    }

    @Test("any other text is kept as text, exactly: empty, short, long, uppercase, non-hex, non-ASCII")
    func otherTextIsKept() async {
        let upper = String(repeating: "AB", count: 32)
        for text in ["", "abc", String(repeating: "a", count: 63), String(repeating: "a", count: 65), upper,
                     String(repeating: "g", count: 64), String(repeating: "é", count: 32)] {
            let stored = StoredSHA256(text)
            if case .digest = stored { Issue.record("\(text) held as bytes") }
            #expect(stored.text == text)
        }
        #expect(StoredSHA256(upper).caseFolded == StoredSHA256(upper.lowercased()))
        await propertyCheck(input: Gen.ascii.string(of: 0...80)) { text in
            #expect(StoredSHA256(text).text == text)
        }
    }
}
