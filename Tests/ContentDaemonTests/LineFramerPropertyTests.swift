@testable import ContentDaemon
import PropertyBased
import Testing

/// Random lines (some longer than the limit, some empty, some ending in `\r`) sent in random pieces: the framer
/// must yield what the obvious model yields, whatever the cuts, and never hold more than the limit.
@Suite("Daemon: line framing properties")
struct LineFramerPropertyTests {
    static let limit = 16
    static let alphabet: [UInt8] = Array("ab {}\"\r".utf8)

    /// What a line becomes: nothing when empty (after dropping one trailing `\r`), oversized past the limit.
    static func model(_ line: [UInt8]) -> LineFramer.Piece? {
        if line.count > limit { return .oversized }
        let trimmed = line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : line
        return trimmed.isEmpty ? nil : .line(trimmed)
    }

    @Test func yieldsTheModelsLinesWhateverThePieces() async {
        let line = Gen.element(of: Self.alphabet).array(of: 0...40)
        await propertyCheck(input: line.array(of: 0...8), Gen.int(in: 1...25).array(of: 1...30)) { generated, cuts in
            let lines = generated.map { $0.compactMap { $0 } }
            var stream: [UInt8] = []
            for line in lines { stream += line + [UInt8(ascii: "\n")] }
            var framer = LineFramer(limit: Self.limit)
            var pieces: [LineFramer.Piece] = []
            var offset = 0
            var turn = 0
            while offset < stream.count {
                let size = min(cuts[turn % cuts.count], stream.count - offset)
                pieces += framer.append(stream[offset..<offset + size])
                #expect(framer.bufferedCount <= Self.limit)
                offset += size
                turn += 1
            }
            #expect(pieces == lines.compactMap(Self.model))
            #expect(framer.bufferedCount == 0)
        }
    }

    @Test func anUnfinishedLineIsHeldUntilItsNewline() {
        var framer = LineFramer(limit: 8)
        #expect(framer.append(Array("abc".utf8)).isEmpty)
        #expect(framer.bufferedCount == 3)
        #expect(framer.append(Array("d\nef".utf8)) == [.line(Array("abcd".utf8))])
        #expect(framer.append(Array("ghijklmnop".utf8)) == [.oversized])  // reported once, before its newline
        #expect(framer.append(Array("qr\nok\n".utf8)) == [.line(Array("ok".utf8))])
    }
}
