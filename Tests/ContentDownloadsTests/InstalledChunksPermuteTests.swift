@testable import ContentDownloads
import PropertyBased
import Testing

/// The installed version's content index puts its hash column in sorted order in place, cycle by cycle: for any
/// permutation the result is what a sorted copy would be.
@Suite("content index: a column permuted in place")
struct InstalledChunksPermuteTests {
    @Test func permutingInPlaceEqualsACopyInThatOrder() async {
        await propertyCheck(input: Gen.int(in: -1_000...1_000).array(of: 0...300)) { values in
            // The order that sorts the values (ties by position), as the index builds it.
            let order = values.indices.map(Int32.init).sorted { (values[Int($0)], $0) < (values[Int($1)], $1) }
            var permuted = values
            InstalledChunks.permute(&permuted, by: order)
            #expect(permuted == order.map { values[Int($0)] })
            #expect(permuted == values.sorted())
        }
    }

    @Test func anyPermutationIsApplied() async {
        // A permutation drawn by the generator (reproducible from its seed): the order that sorts random keys.
        await propertyCheck(input: Gen.int(in: 0...1_000_000).array(of: 0...200)) { keys in
            let order = keys.indices.map(Int32.init).sorted { (keys[Int($0)], $0) < (keys[Int($1)], $1) }
            let values = keys.indices.map { $0 * 7 - 3 }
            var permuted = values
            InstalledChunks.permute(&permuted, by: order)
            #expect(permuted == order.map { values[Int($0)] })
        }
    }
}
