@testable import ContentPackaging
import Crypto
import Foundation
import PropertyBased
import SystemSupport
import Testing
import TestSupport

/// `PairedSHA256` against swift-crypto: for any split of the bytes into pieces, any choice of which pieces
/// the second stream takes and any finish points, both digests are swift-crypto's, on the SHA-extension
/// path and on the portable one.
@Suite("paired SHA-256")
struct PairedSHA256Tests {
    /// A piece of the stream: its length, whether the second stream takes it, whether each stream finishes after it.
    struct Step {
        var length: Int
        var second: Bool
        var finishFirst: Bool
        var finishSecond: Bool
    }

    /// 1–30 steps of 0–300 bytes (some block-sized), each taken and finished at random.
    private static let steps = Gen.uint64().array(of: 1...30).map { seeds in
        seeds.map { seed in
            let lengths = [0, 1, 55, 56, 63, 64, 65, 128, 200, 300]
            let length = seed % 3 == 0 ? lengths[Int(seed >> 8) % lengths.count] : Int(seed >> 16) % 301
            return Step(length: length, second: (seed >> 40) % 3 != 0, finishFirst: (seed >> 44) % 5 == 0,
                        finishSecond: (seed >> 48) % 4 == 0)
        }
    }

    /// Runs `steps` over deterministic bytes; returns every digest PairedSHA256 gave and swift-crypto's.
    private static func digests(_ steps: [Step], seed: UInt64, accelerated: Bool) -> (ours: [String], expected: [String]) {
        let data = PackageFixture.bytes(count: steps.reduce(0) { $0 + $1.length }, seed: seed)
        var paired = PairedSHA256(accelerated: accelerated)
        var first = SHA256(), second = SHA256()
        var ours: [String] = [], expected: [String] = []
        var offset = 0
        data.withUnsafeBytes { bytes in
            for step in steps {
                let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + step.length])
                offset += step.length
                paired.update(piece, second: step.second)
                first.update(bufferPointer: piece)
                if step.second { second.update(bufferPointer: piece) }
                if step.finishFirst {
                    ours.append(paired.finishFirst())
                    expected.append(first.finalizeHex())
                    first = SHA256()
                }
                if step.finishSecond {
                    ours.append(paired.finishSecond())
                    expected.append(second.finalizeHex())
                    second = SHA256()
                }
            }
        }
        ours += [paired.finishFirst(), paired.finishSecond()]
        expected += [first.finalizeHex(), second.finalizeHex()]
        return (ours, expected)
    }

    @Test("both digests are swift-crypto's for any pieces, takes and finish points, on both paths")
    func matchesSwiftCrypto() async {
        await propertyCheck(input: Self.steps, Gen.uint64()) { steps, seed in
            for accelerated in PairedSHA256.isAccelerated ? [true, false] : [false] {
                let result = Self.digests(steps, seed: seed, accelerated: accelerated)
                #expect(result.ours == result.expected, "accelerated \(accelerated)")
            }
        }
    }

    @Test("megabytes in pieces that start the two streams at different block offsets")
    func largeOffsetPieces() {
        let data = PackageFixture.bytes(count: 3 << 20, seed: 9)
        var paired = PairedSHA256()
        var first = SHA256(), second = SHA256()
        data.withUnsafeBytes { bytes in
            // 17 bytes for the first stream alone, then the rest for both in 1 MiB + 5 pieces.
            let head = UnsafeRawBufferPointer(rebasing: bytes[0..<17])
            paired.update(head, second: false)
            first.update(bufferPointer: head)
            var offset = 17
            while offset < bytes.count {
                let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<min(offset + (1 << 20) + 5, bytes.count)])
                paired.update(piece, second: true)
                first.update(bufferPointer: piece)
                second.update(bufferPointer: piece)
                offset += piece.count
            }
        }
        #expect(paired.finishFirst() == first.finalizeHex())
        #expect(paired.finishSecond() == second.finalizeHex())
        #expect(paired.finishSecond() == SHA256().finalizeHex())  // finishing started the stream again
    }

    @Test("a stream is a value: a copy hashed on diverges from the original, which carries on unchanged")
    func streamsAreValues() {
        let data = PackageFixture.bytes(count: 300_000, seed: 4)
        data.withUnsafeBytes { bytes in
            for accelerated in SHA256Stream.isAccelerated ? [true, false] : [false] {
                var chunk = SHA256Stream(accelerated: accelerated), file = SHA256Stream(accelerated: accelerated)
                let head = UnsafeRawBufferPointer(rebasing: bytes[0..<100_001])
                SHA256Stream.update(head, first: &chunk, second: &file)
                var copy = file  // as the client does: hash on into a copy, keep it only if the chunk checks out
                SHA256Stream.update(UnsafeRawBufferPointer(rebasing: bytes[100_001..<200_000]), first: &chunk, second: &copy)
                file.update(UnsafeRawBufferPointer(rebasing: bytes[100_001...]))
                #expect(file.finish() == SHA256.hash(data: bytes).lowercaseHex, "accelerated \(accelerated)")
                #expect(copy.finish() == SHA256.hash(data: UnsafeRawBufferPointer(rebasing: bytes[0..<200_000])).lowercaseHex)
                #expect(chunk.finish() == SHA256.hash(data: UnsafeRawBufferPointer(rebasing: bytes[0..<200_000])).lowercaseHex)
            }
        }
    }

    @Test("a finished digest matches its hex in either case, and nothing else", arguments: [0, 1, 55, 56, 64, 1000])
    func finishMatchesItsHexOnly(count: Int) {
        let data = PackageFixture.bytes(count: count, seed: 9)
        let hex = SHA256.hash(data: data).lowercaseHex
        var wrongDigit = Array(hex.utf8)
        wrongDigit[40] = wrongDigit[40] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        let spellings = [
            (hex, true), (hex.uppercased(), true), (String(decoding: wrongDigit, as: UTF8.self), false),
            (String(hex.dropLast()), false), (hex + "0", false), ("", false), (String(hex.dropLast()) + "g", false),
        ]
        for accelerated in SHA256Stream.isAccelerated ? [true, false] : [false] {
            for (spelling, matches) in spellings {
                var stream = SHA256Stream(accelerated: accelerated)
                data.withUnsafeBytes { stream.update($0) }
                #expect(stream.finishMatches(spelling) == matches, "\(spelling), accelerated \(accelerated)")
            }
        }
    }
}
