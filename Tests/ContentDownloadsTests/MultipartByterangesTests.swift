@testable import ContentDownloads
import Foundation
import PropertyBased
import Testing

/// `MultipartByteranges` reads what nginx sends for several ranges, cut into pieces anywhere, and says why a body
/// that is not one is malformed.
@Suite("multipart/byteranges reader")
struct MultipartByterangesTests {
    static let type = "multipart/byteranges; boundary=00000000000000000001"

    /// A body as nginx writes it: each part's delimiter, type and range, its bytes; then the close delimiter.
    static func body(_ parts: [(range: Range<Int64>, bytes: [UInt8])], total: Int64) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            out += Array("\r\n--00000000000000000001\r\nContent-Type: application/zstd\r\nContent-Range: bytes \(part.range.lowerBound)-\(part.range.upperBound - 1)/\(total)\r\n\r\n".utf8)
            out += part.bytes
        }
        return out + Array("\r\n--00000000000000000001--\r\n".utf8)
    }

    /// Feeds `body` in pieces cut at `cuts`; the parts read (range and bytes), and the problem if any.
    static func read(_ body: [UInt8], cuts: [Int], type: String = type) -> (parts: [(Range<Int64>, [UInt8])], problem: String?, complete: Bool) {
        var reader = MultipartByteranges(contentType: type)!
        var parts: [(Range<Int64>, [UInt8])] = []
        var problem: String?
        var start = 0
        for end in (cuts.filter { $0 > 0 && $0 < body.count }.sorted() + [body.count]) where end > start {
            body[start..<end].withUnsafeBytes { piece in
                problem = problem ?? reader.feed(piece) { event in
                    switch event {
                    case .part(let range): parts.append((range, []))
                    case .data(let bytes): parts[parts.count - 1].1 += Array(bytes)
                    }
                    return true
                }
            }
            start = end
        }
        return (parts, problem, reader.isComplete)
    }

    @Test func partsCutAnywhereReadWhole() async {
        let gen = Gen.uint64().array(of: 1...6).map { seeds -> [(range: Range<Int64>, bytes: [UInt8])] in
            var offset: Int64 = 0
            return seeds.map { seed in
                offset += Int64(seed % 5000) + 1
                let length = Int(seed >> 16 % 3000) + 1
                defer { offset += Int64(length) }
                return (offset..<(offset + Int64(length)), (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed % 251)) })
            }
        }
        await propertyCheck(input: gen, Gen.int(in: 0...20_000).array(of: 0...12)) { parts, cuts in
            let total = (parts.last?.range.upperBound ?? 0) + 10
            let result = Self.read(Self.body(parts, total: total), cuts: cuts)
            #expect(result.problem == nil)
            #expect(result.complete)
            #expect(result.parts.map(\.0) == parts.map(\.range))
            #expect(result.parts.map(\.1) == parts.map(\.bytes))
        }
    }

    @Test func aQuotedBoundaryAndOtherTypes() {
        #expect(MultipartByteranges(contentType: "multipart/byteranges; boundary=\"abc\"") != nil)
        #expect(MultipartByteranges(contentType: "application/octet-stream") == nil)
        #expect(MultipartByteranges(contentType: "multipart/byteranges") == nil)
    }

    @Test func malformedBodiesAreRefusedWithTheReason() {
        let good = Self.body([(0..<4, [1, 2, 3, 4])], total: 10)
        var noRange = good
        noRange.replaceSubrange(0..<good.count, with: Array("\r\n--00000000000000000001\r\nContent-Type: x\r\n\r\nabcd".utf8))
        #expect(Self.read(noRange, cuts: [7]).problem?.contains("no byte range") == true)
        let wrongBoundary = Array("\r\n--00000000000000000002\r\nContent-Range: bytes 0-3/10\r\n\r\nabcd".utf8)
        #expect(Self.read(wrongBoundary, cuts: []).problem?.contains("boundary") == true)
        let endless = Array("\r\n--00000000000000000001\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 9000)
        #expect(Self.read(endless, cuts: [100, 5000]).problem?.contains("8192") == true)
        #expect(Self.read(Array(good.dropLast(30)), cuts: []).complete == false, "a body cut short is not complete")
    }
}
