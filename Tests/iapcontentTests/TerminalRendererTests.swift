import ContentDownloads
import Foundation
import Testing

@testable import iapcontent

/// ProgressRenderer layout: width, fields, ETA, stalled, colour.
@Suite struct TerminalRendererTests {
    static let rows: [ProgressRow] = [
        ProgressRow(
            productID: "com.example.maps.europe.high-resolution-tiles", state: "active", downloadedBytes: 12_897_485,
            expectedBytes: 1_073_741_824, bytesPerSecond: 47_815_065, timeRemaining: 83.4),
        ProgressRow(productID: "com.example.voices", state: "waiting", downloadedBytes: 0, expectedBytes: 5_000),
        ProgressRow(productID: "a", state: "paused", downloadedBytes: 512, expectedBytes: 1024),
        ProgressRow(productID: "com.example.fonts", state: "finished", downloadedBytes: 2048, expectedBytes: 2048),
        ProgressRow(
            productID: "com.example.stuck", state: "active", downloadedBytes: 10, expectedBytes: 100, bytesPerSecond: 0,
            timeRemaining: -1, stalled: true),
        ProgressRow(
            productID: "com.example.broken", state: "failed", downloadedBytes: 10, expectedBytes: 100,
            error: DownloadError(
                code: .checksumMismatch,
                message: "archive SHA-256 differs from the catalog (http://127.0.0.1:8080/archives/ab.tar.zst); publish again")),
    ]

    @Test(arguments: [1, 5, 20, 40, 80, 200], [false, true])
    func linesNeverExceedTheWidth(width: Int, colour: Bool) {
        let lines = ProgressRenderer(width: width, colour: colour).lines(for: Self.rows)
        #expect(lines.count == Self.rows.count)
        for line in lines {
            let visible = Formatting.visible(line)
            #expect(visible.count <= width, "\(width): '\(visible)' is \(visible.count) wide")
            #expect(!visible.contains("\n"))
        }
    }

    @Test func wideLineShowsEveryField() throws {
        let line = ProgressRenderer(width: 200, colour: false).lines(for: Self.rows)[0]
        #expect(line.hasPrefix("com.example.maps.europe.high-resolution-tiles".prefix(39) + "…"))
        #expect(line.contains(" active "))
        #expect(line.contains("["))
        #expect(line.contains("]"))
        #expect(line.contains("  1.2%"))
        #expect(line.contains("12.3 MiB/1.0 GiB"))
        #expect(line.contains("45.6 MiB/s"))
        #expect(line.hasSuffix("01:24"))
    }

    @Test func barFillsInProportion() throws {
        let renderer = ProgressRenderer(width: 120, colour: false)
        func filled(_ done: Int64) throws -> Int {
            let line = renderer.line(
                for: ProgressRow(productID: "p", state: "active", downloadedBytes: done, expectedBytes: 1000), nameColumn: 1)
            let start = try #require(line.firstIndex(of: "["))
            let end = try #require(line.firstIndex(of: "]"))
            let bar = line[line.index(after: start)..<end]
            #expect(bar.count == ProgressRenderer.maximumBarWidth - 2)
            return bar.filter { $0 == "█" }.count
        }
        #expect(try filled(0) == 0)
        #expect(try filled(500) == (ProgressRenderer.maximumBarWidth - 2) / 2)
        #expect(try filled(1000) == ProgressRenderer.maximumBarWidth - 2)
        #expect(try filled(250) < filled(750))
    }

    @Test func narrowTerminalsDropFieldsBeforeTheName() {
        let row = Self.rows[0]
        let narrow = ProgressRenderer(width: 40, colour: false).line(for: row, nameColumn: 20)
        #expect(narrow.contains("%"))  // the percent stays longest
        #expect(narrow.contains(" active "))
        #expect(narrow.hasSuffix("01:24"))
        #expect(!narrow.contains("MiB/s"))  // the speed goes first, then bytes and the bar
        #expect(!narrow.contains("["))
        #expect(narrow.hasPrefix("com.example.m"))
        #expect(narrow.contains("…"))
        let tiny = ProgressRenderer(width: 20, colour: false).line(for: row, nameColumn: 40)
        #expect(tiny.count <= 20)
        #expect(tiny.hasPrefix("com.exam"))
    }

    @Test func stalledAndUnknownETA() {
        let renderer = ProgressRenderer(width: 160, colour: false)
        #expect(renderer.line(for: Self.rows[4], nameColumn: 20).hasSuffix("stalled"))
        var unknown = Self.rows[0]
        unknown.timeRemaining = -1
        #expect(renderer.line(for: unknown, nameColumn: 20).hasSuffix("--:--"))
        // Not active: no ETA, no speed.
        let paused = renderer.line(for: Self.rows[2], nameColumn: 20)
        #expect(!paused.contains("--:--"))
        #expect(!paused.contains("/s"))
    }

    @Test func failedRowNamesTheErrorAndFitsTheWidth() {
        let line = ProgressRenderer(width: 80, colour: false).line(for: Self.rows[5], nameColumn: 20)
        #expect(line.contains("failed"))
        #expect(line.contains("archive SHA-256 differs"))
        #expect(line.hasSuffix("…"))
        #expect(line.count <= 80)
    }

    @Test(arguments: [
        (0.0, "00:00"), (5.2, "00:06"), (59.0, "00:59"), (61.0, "01:01"), (3599.0, "59:59"), (3600.0, "1:00:00"),
        (45_296.0, "12:34:56"), (-1.0, "--:--"), (Double.infinity, "--:--"), (Double.nan, "--:--"),
    ])
    func etaFormats(seconds: Double, expected: String) {
        #expect(Formatting.eta(seconds) == expected)
    }

    @Test(arguments: [
        (Int64(0), "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (12_897_485, "12.3 MiB"), (1_073_741_824, "1.0 GiB"),
        (1_048_575, "1.0 MiB"),
    ])
    func byteFormats(count: Int64, expected: String) {
        #expect(Formatting.bytes(count) == expected)
    }

    @Test func summaryLine() {
        let summary = RunSummary(files: 3, bytes: 1_073_741_824, elapsed: 12.3)
        #expect(summary.description == "3 files, 1.0 GiB in 12.3 s, 83.3 MiB/s")
        #expect(RunSummary(files: 1, bytes: 10, elapsed: 0).description == "1 file, 10 B in 0.0 s")
        #expect(Formatting.elapsed(125) == "2 m 05 s")
        #expect(ProgressRenderer(width: 10, colour: false).summaryLine(summary).count <= 10)
    }

    @Test func noColourMeansNoEscapes() {
        for width in [20, 80, 200] {
            for line in ProgressRenderer(width: width, colour: false).lines(for: Self.rows) {
                #expect(!line.contains("\u{1B}"))
            }
        }
    }

    @Test func colourDecisionHonoursTerminalAndNoColor() {
        #expect(TerminalCapabilities.wantsColour(isTerminal: true, environment: ["TERM": "xterm-256color"]))
        #expect(!TerminalCapabilities.wantsColour(isTerminal: false, environment: ["TERM": "xterm-256color"]))
        #expect(!TerminalCapabilities.wantsColour(isTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": "1"]))
        #expect(TerminalCapabilities.wantsColour(isTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": ""]))
        #expect(!TerminalCapabilities.wantsColour(isTerminal: true, environment: ["TERM": "dumb"]))
        #expect(TerminalCapabilities.columns(environment: ["COLUMNS": "123"]) > 0)
    }
}
