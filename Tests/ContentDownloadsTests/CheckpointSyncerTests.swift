@testable import ContentDownloads
import Foundation
import Glibc
import Testing
import TestSupport

/// Checkpoints are fsynced off the transfer thread; results must come back in order, carry fsync
/// errors, and the engine must still report durable offsets that only grow and end at the length.
@Suite("Transfer: checkpoints fsynced off the transfer thread")
struct CheckpointSyncerTests {
    @Test func resultsComeBackInOrderWithErrors() throws {
        let folder = try TemporaryDirectory.make(prefix: "syncer")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("f.partial").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 10_000))
        let fd = open(path, O_RDWR | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        let woken = DispatchSemaphore(value: 0)
        let syncer = CheckpointSyncer(onCompleted: { woken.signal() })
        let first = syncer.submit(id: "a", fd: dup(fd), offset: 4_096)
        let bad = syncer.submit(id: "b", fd: -1, offset: 1)
        let second = syncer.submit(id: "a", fd: dup(fd), offset: 10_000)
        var results: [CheckpointSyncer.Completed] = []
        for _ in 0..<3 {
            #expect(woken.wait(timeout: .now() + 30) == .success)
            results += syncer.takeCompleted()
        }
        syncer.stop()
        #expect(results.map(\.token) == [first, bad, second])
        #expect(results.map(\.offset) == [4_096, 1, 10_000])
        #expect(results.map(\.error) == [0, EBADF, 0])
        #expect(Set([first, bad, second]).count == 3)
    }

    /// A device slower than the network: the transfer thread falls back to inline fsyncs so the durable
    /// offset never trails by more than ``TransferSettings/durableLagLimit`` (what a power loss would re-fetch).
    @Test func aSlowDeviceBoundsTheDurableLag() async throws {
        var settings = TransferSettings()
        settings.checkpointBytes = 64 << 10
        settings.writeBufferSize = 64 << 10
        settings.durableLagLimit = 3 * (64 << 10)
        settings.checkpointSyncDelayForTesting = 0.5
        let (checkpoints, length) = try await checkpointOffsets(settings: settings, seed: 12)
        #expect(checkpoints.count >= 10)
        let gaps = zip([0] + checkpoints, checkpoints).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= 0 && $0 <= 256 << 10 }, "gaps \(gaps)")  // the end may repeat the last offset
        #expect(checkpoints.last == length)
    }

    @Test func engineReportsGrowingDurableOffsetsEndingAtTheLength() async throws {
        var settings = TransferSettings()
        settings.checkpointBytes = 64 << 10
        settings.writeBufferSize = 64 << 10
        // 1 MiB/s (3 s): a periodic checkpoint is reported only if its fsync returns before the next one
        // supersedes it, which a loaded machine (tests run in parallel) can delay for most of a second.
        let (checkpoints, length) = try await checkpointOffsets(settings: settings, seed: 11, rate: 1 << 20)
        #expect(checkpoints.count >= 2)
        #expect(zip(checkpoints, checkpoints.dropFirst()).allSatisfy { $0 <= $1 }, "\(checkpoints)")
        #expect(checkpoints.last == length)
    }

    /// Downloads 3 MiB from nginx at `rate` bytes per second (4 MiB/s: about 0.75 s, so background fsyncs
    /// finish while bytes still arrive) and returns every reported durable offset.
    private func checkpointOffsets(
        settings: TransferSettings, seed: UInt64, rate: Int64 = 4 << 20
    ) async throws -> ([Int64], Int64) {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let bytes = TestData.randomBytes(3 << 20, seed: seed)
        try Data(bytes).write(to: nginx.root.appendingPathComponent("c.bin"))
        let folder = try TemporaryDirectory.make(prefix: "syncer-engine")
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try TransferEngine(settings: settings)
        engine.start()
        engine.submit(TransferRequest(
            id: "com.example.c", url: nginx.baseURL + "/c.bin",
            partialPath: folder.appendingPathComponent("c.partial").path,
            archivePath: folder.appendingPathComponent("c.tar.zst").path, offset: 0,
            expectedLength: Int64(bytes.count), expectedSHA256: sha256Hex(bytes), validator: nil,
            maxBytesPerSecond: rate))
        var checkpoints: [Int64] = []
        var verified = false
        for await report in engine.events {
            switch report.event {
            case .checkpoint(_, let offset, _): checkpoints.append(offset)
            case .verified: verified = true
            case .failed(_, let failure, _): Issue.record("failed: \(failure)")
            default: break
            }
            if verified || checkpoints.count > 10_000 { break }
        }
        await engine.shutdown()
        #expect(verified)
        return (checkpoints, Int64(bytes.count))
    }
}
