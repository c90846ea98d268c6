import Foundation
import Testing

/// `serve` answers 200 concurrent range requests on loopback, each with the right bytes.
@Suite struct ServeLoadTests {
    @Test func twoHundredConcurrentRangeRequests() async throws {
        let size = 400_000
        let folder = try HostedFolder(size: size)
        defer { folder.remove() }
        let work = folder.root.appendingPathComponent("load")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let count = 200
        let chunk = size / count
        try await withLiveServer(root: folder.site) { base in
            let url = base.absoluteString + folder.archivePath
            // One curl process, 200 transfers in parallel (libcurl multi), one range each.
            var config = ""
            for index in 0..<count {
                let start = index * chunk
                config += "url = \"\(url)\"\n"
                config += "range = \"\(start)-\(start + chunk - 1)\"\n"
                config += "output = \"\(work.appendingPathComponent("part-\(index)").path)\"\n"
                config += "write-out = \"\(index) %{http_code}\\n\"\n"
                if index < count - 1 { config += "next\n" }
            }
            let configFile = work.appendingPathComponent("curl.conf")
            try config.write(to: configFile, atomically: true, encoding: .utf8)
            let report = work.appendingPathComponent("report.txt")
            let status = try await runShell(
                "/usr/bin/curl -s --parallel --parallel-immediate --parallel-max \(count) --max-time 60 "
                    + "-K '\(configFile.path)' > '\(report.path)'")
            #expect(status == 0)
            let lines = try String(contentsOf: report, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == count)
            #expect(lines.allSatisfy { $0.hasSuffix(" 206") })
            for index in 0..<count {
                let part = try Data(contentsOf: work.appendingPathComponent("part-\(index)"))
                #expect(part == folder.archiveBytes.subdata(in: (index * chunk)..<((index + 1) * chunk)), "part \(index)")
            }
        }
    }
}

/// Runs a shell command line, awaiting its exit without blocking a thread.
func runShell(_ command: String) async throws -> Int32 {
    try await runProcess("/bin/sh", ["-c", command])
}
