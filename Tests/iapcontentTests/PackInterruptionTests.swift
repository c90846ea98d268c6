import Foundation
import Glibc
import Testing
import TestSupport

@Suite("iapcontent pack cleanup on interruption and errors")
struct PackInterruptionTests {
    @Test("SIGINT/SIGTERM during a pack removes the temp file and exits 3", arguments: [SIGINT, SIGTERM])
    func interrupted(_ signalNumber: Int32) throws {
        let directory = try TemporaryDirectory("interrupt")
        let folder = try PackageFixture.make(at: directory.appending("pkg"))
        // 96 MiB of incompressible data keeps the pack busy long enough to interrupt it.
        let fill = try CommandRunner.run(
            "/bin/sh", ["-c", "head -c 100663296 /dev/urandom > '\(folder.path)/Contents/big.bin'"])
        #expect(fill.status == 0)
        let output = directory.appending("out")
        let process = Process()
        process.executableURL = try CommandRunner.builtExecutable()
        process.arguments = ["pack", folder.path, "--output", output.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var sawTemporary = false
        for _ in 0..<2000 where process.isRunning {  // bounded: at most ~10 s
            let names = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
            if names.contains(where: { $0.contains(".tmp-") }) {
                sawTemporary = true
                break
            }
            usleep(5000)
        }
        try #require(sawTemporary, "the pack finished before it could be interrupted")
        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == [])
    }

    /// Where a tmpfs cannot be mounted this is reported as skipped (failed when `CI` is set: ``Tmpfs``).
    @Test("ENOSPC removes the temp file and names the problem", .needsTmpfs)
    func diskFull() throws {
        let directory = try TemporaryDirectory("enospc")
        let folder = try PackageFixture.make(
            at: directory.appending("pkg"), files: ["Contents/data.bin": PackageFixture.bytes(count: 400_000, seed: 4)])
        let tmpfs = try TmpfsMount(size: "1m")
        defer { tmpfs.unmount() }
        let mountPoint = tmpfs.url
        try Data(count: 800_000).write(to: mountPoint.appendingPathComponent("filler"))
        let output = mountPoint.appendingPathComponent("out")
        let result = try CommandRunner.iapcontent(["pack", folder.path, "--output", output.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == [])
    }
}
