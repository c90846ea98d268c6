@testable import ContentPackaging
import Crypto
import Foundation
import PropertyBased
import SystemSupport
import Testing
import TestSupport

/// The stored dictionary frame as a reader meets it: damaged anywhere, cut anywhere, or made of random bytes, it is
/// refused with a ``DictionaryError`` (or, read alone, not taken for a dictionary) — never trusted, never a crash.
@Suite("dictionary frame: hostile bytes")
struct FrameDictionaryPropertyTests {
    /// A real stored frame and its record, trained once.
    static let sample: (frame: [UInt8], record: ArchiveDictionary) = {
        var samples: [[UInt8]] = []
        for (_, data) in PackageFixture.sharedBlockRecords(count: 200).sorted(by: { $0.key < $1.key }) { samples.append([UInt8](data)) }
        let trained = DictionaryTrainer.train(samplesOf: samples, capacity: 8 << 10)!
        let dictionary = try! FrameDictionary(trained: trained)
        return (dictionary.storedFrame, dictionary.record)
    }()

    @Test("a flipped byte anywhere: refused against the record; read alone, refused or a dictionary of other bytes, never the original's hash")
    func flippedBytes() async {
        let (frame, record) = Self.sample
        await propertyCheck(count: 300, input: Gen.int(in: 0...(frame.count - 1)), Gen.int(in: 1...255)) { position, mask in
            var damaged = frame
            damaged[position] ^= UInt8(mask)
            #expect(throws: DictionaryError.self) { try FrameDictionary(stored: damaged, record: record) }
            if let alone = try? FrameDictionary.stored(atStartOf: Array(damaged.prefix(8)), readFrame: { Array(damaged.prefix($0)) }) {
                #expect(alone.record.sha256 != record.sha256)
            }
        }
    }

    @Test("cut short at any length: refused against the record and read alone")
    func cutShort() async {
        let (frame, record) = Self.sample
        await propertyCheck(count: 300, input: Gen.int(in: 0...(frame.count - 1))) { length in
            let cut = Array(frame.prefix(length))
            #expect(throws: DictionaryError.self) { try FrameDictionary(stored: cut, record: record) }
            if length >= FrameDictionary.headerLength {
                #expect(throws: DictionaryError.self) { try FrameDictionary.stored(atStartOf: Array(cut.prefix(8)), readFrame: { Array(cut.prefix($0)) }) }
            }
        }
    }

    @Test("random bytes behind the skippable-frame magic: refused or a sound dictionary, never a crash")
    func randomPayloads() async {
        await propertyCheck(count: 300, input: Gen.uint64(), Gen.int(in: 0...4096)) { seed, count in
            var bytes: [UInt8] = [0x5E, 0x2A, 0x4D, 0x18]
            let payload = [UInt8](PackageFixture.bytes(count: count, seed: seed))
            bytes += withUnsafeBytes(of: UInt32(count).littleEndian, Array.init) + payload
            let record = ArchiveDictionary(length: Int64(bytes.count), size: 100, id: 7, sha256: SHA256.hash(data: bytes).lowercaseHex)
            #expect(throws: DictionaryError.self) { try FrameDictionary(stored: bytes, record: record) }
            if let found = try? FrameDictionary.stored(atStartOf: Array(bytes.prefix(8)), readFrame: { Array(bytes.prefix($0)) }) {
                #expect(found.record.id != 0 && found.record.size > 0)
            }
        }
    }
}
