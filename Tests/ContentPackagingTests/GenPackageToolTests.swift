import ContentPackaging
import Foundation
import Testing
import TestSupport

/// `tools/gen-package`, the synthetic large-package generator used by benchmarks.
@Suite("tools/gen-package")
struct GenPackageToolTests {
    private let tool = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("tools/gen-package").path

    private func generate(_ directory: URL, seed: String, size: Int = 300_001, files: Int = 3) throws {
        let result = try CommandRunner.run(
            "/usr/bin/env",
            ["python3", tool, directory.path, "--size", "\(size)", "--files", "\(files)", "--product", "com.example.gen",
             "--version", "4.2", "--seed", seed])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("same seed gives the same bytes; another seed differs; the package is valid and sized as asked",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
    func deterministicAndValid() throws {
        let directory = try TemporaryDirectory("gen")
        try generate(directory.appending("a"), seed: "7")
        try generate(directory.appending("b"), seed: "7")
        try generate(directory.appending("c"), seed: "8")
        let diffSame = try CommandRunner.run("/usr/bin/diff", ["-r", directory.appending("a").path, directory.appending("b").path])
        #expect(diffSame.status == 0)
        let diffOther = try CommandRunner.run("/usr/bin/diff", ["-rq", directory.appending("a").path, directory.appending("c").path])
        #expect(diffOther.status == 1)

        let report = PackageValidator().validate(folder: directory.appending("a"))
        #expect(report.isValid, "\(report.problems)")
        #expect(report.contentInfo?.productID == "com.example.gen")
        #expect(report.contentInfo?.contentVersion.description == "4.2")
        let parts = report.entries.filter { $0.path.hasPrefix("Contents/data/part-") }
        #expect(parts.count == 3)
        #expect(parts.reduce(0) { $0 + $1.size } == 300_001)

        // Incompressible: zstd cannot shrink it meaningfully.
        let packed = try Packer().pack(folder: directory.appending("a"), outputDirectory: directory.appending("out"))
        #expect(packed.manifest.archiveSize > 300_000)
    }
}
