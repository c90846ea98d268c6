import ContentDownloads
import Foundation
import Synchronization
import Testing

@testable import iapcontent

/// Plain and JSON-lines progress, the speed/stall tracker, and the live display's frames.
@Suite struct TerminalWritersTests {
    static let start = ContinuousClock.now
    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    static func row(_ state: String, _ bytes: Int64, error: String? = nil) -> ProgressRow {
        ProgressRow(
            productID: "com.example.maps", contentVersion: "2.1", state: state, downloadedBytes: bytes,
            expectedBytes: 1000, timeRemaining: state == "active" ? 12 : -1,
            error: error.map { DownloadError(code: .network, message: $0) })
    }

    @Test func plainLinesOnStateChangesAndAtMostEveryInterval() {
        var writer = PlainProgressWriter(interval: .seconds(3))
        var lines: [String] = []
        let feed: [(Double, ProgressRow)] = [
            (0, Self.row("waiting", 0)), (0.1, Self.row("active", 0)), (0.5, Self.row("active", 100)),
            (1.0, Self.row("active", 200)), (3.2, Self.row("active", 500)), (3.5, Self.row("active", 600)),
            (3.6, Self.row("paused", 600)), (3.7, Self.row("paused", 600)), (4, Self.row("active", 600)),
            (4.1, Self.row("finished", 1000)), (9, Self.row("finished", 1000)),
        ]
        for (time, row) in feed {
            if let line = writer.line(for: row, at: Self.at(time)) { lines.append(line) }
        }
        #expect(lines.map { $0.split(separator: " ")[1] } == ["waiting", "active", "active", "paused", "active", "finished"])
        for line in lines {
            #expect(!line.contains("\u{1B}"))
            #expect(!line.contains("["))
            #expect(!line.contains("  "))
        }
        #expect(lines[2].contains(" 50.0% "))
        // At the end, a download whose last state was not printed gets its closing line; others do not.
        #expect(writer.finalLine(for: Self.row("finished", 1000), at: Self.at(10)) == nil)
        var other = Self.row("active", 10)
        other.productID = "com.example.voices"
        _ = writer.line(for: other, at: Self.at(1))
        other.downloadedBytes = 20
        #expect(writer.line(for: other, at: Self.at(2)) == nil)
        #expect(writer.finalLine(for: other, at: Self.at(2))?.contains("2.0%") == true)
    }

    static let keys: Set<String> = [
        "event", "productID", "contentIdentifier", "contentVersion", "state", "downloadedBytes", "expectedContentLength", "progress",
        "timeRemaining", "error",
    ]

    static func parse(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func jsonEventsHaveExactlyTheStatusKeys() throws {
        var writer = JSONEventWriter(progressInterval: .milliseconds(500))
        var lines: [String] = []
        let feed: [(Double, ProgressRow)] = [
            (0, Self.row("waiting", 0)), (0.1, Self.row("active", 0)), (0.2, Self.row("active", 100)),
            (0.7, Self.row("active", 300)), (0.8, Self.row("active", 400)),
            (1.0, Self.row("waiting", 400, error: "connection reset by 127.0.0.1:8080; retrying in 2 s")),
            (1.5, Self.row("active", 400)), (2.5, Self.row("finished", 1000)),
        ]
        for (time, row) in feed { lines += writer.events(for: row, at: Self.at(time)) }
        lines += writer.finishEvents(for: [Self.row("finished", 1000)])

        let objects = try lines.map(Self.parse)
        for object in objects { #expect(Set(object.keys) == Self.keys) }
        let events = objects.map { $0["event"] as? String ?? "?" }
        #expect(events == ["state", "state", "progress", "state", "error", "state", "state", "finish"])
        #expect(objects[2]["downloadedBytes"] as? Int == 300)
        #expect(objects[2]["progress"] as? Double == 0.3)
        #expect(objects[2]["timeRemaining"] as? Double == 12)
        #expect(objects[0]["error"] is NSNull)
        let error = try #require(objects[4]["error"] as? [String: Any])
        #expect(error["code"] as? String == "network")
        #expect(error["message"] as? String == "connection reset by 127.0.0.1:8080; retrying in 2 s")
        // Each event's download keys are the library's wire form: a daemon client's decoder reads them unchanged.
        for line in lines {
            let snapshot = try JSONDecoder().decode(DownloadSnapshot.self, from: Data(line.utf8))
            #expect(snapshot.productID == "com.example.maps")
        }
        #expect(objects[0]["timeRemaining"] as? Double == -1)
        #expect(objects.last?["state"] as? String == "finished")
        #expect(objects.last?["expectedContentLength"] as? Int == 1000)
        #expect(objects.last?["contentVersion"] as? String == "2.1")
        for line in lines { #expect(!line.contains("\n")) }
    }

    @Test func trackerMeasuresSpeedAndStalls() {
        var tracker = ProgressTracker()
        _ = tracker.observe(Self.row("active", 0), at: Self.at(0))
        let measured = tracker.observe(Self.row("active", 500), at: Self.at(1))
        #expect(measured.bytesPerSecond == 500)
        #expect(!measured.stalled)
        #expect(tracker.refresh(at: Self.at(3)).first?.stalled == false)
        #expect(tracker.refresh(at: Self.at(6.5)).first?.stalled == true)
        #expect(tracker.refresh(at: Self.at(6.5)).first?.bytesPerSecond == 0)
        #expect(tracker.observe(Self.row("active", 600), at: Self.at(7)).stalled == false)
        // Paused downloads never stall and have no speed.
        let paused = tracker.observe(Self.row("paused", 600), at: Self.at(8))
        #expect(tracker.refresh(at: Self.at(20)).first?.stalled == false)
        #expect(paused.bytesPerSecond == nil)
        #expect(tracker.bytesThisRun == 600)
    }

    @Test func trackerEstimatesTimeRemainingWhenTheEngineDoesNot() {
        var tracker = ProgressTracker()
        var row = Self.row("active", 0)
        row.timeRemaining = -1
        _ = tracker.observe(row, at: Self.at(0))
        row.downloadedBytes = 200
        let estimated = tracker.observe(row, at: Self.at(1))
        #expect(estimated.timeRemaining == 4)  // 800 bytes left at 200 B/s
    }

    /// Collects what a display writes.
    final class Capture: Sendable {
        private let text = Mutex("")
        func write(_ chunk: String) { text.withLock { $0 += chunk } }
        var value: String { text.withLock { $0 } }
    }

    @Test func displayRedrawsInPlaceAndFinishesCleanly() async throws {
        let capture = Capture()
        let display = TerminalDisplay(colour: false, output: { capture.write($0) }, columns: { 60 })
        await display.update(Self.row("active", 100))
        var other = Self.row("waiting", 0)
        other.productID = "com.example.voices"
        await display.update(other)
        try await Task.sleep(for: .milliseconds(150))
        await display.update(Self.row("active", 400))
        await display.message("com.example.voices paused from another shell")
        await display.finish(summary: RunSummary(files: 1, bytes: 1000, elapsed: 2))
        await display.update(Self.row("finished", 1000))  // ignored after finish

        let output = capture.value
        #expect(output.contains("\u{1B}[2A"))  // moved up over its two lines to redraw
        #expect(output.contains("\r\u{1B}[K"))
        #expect(output.hasSuffix("1 file, 1000 B in 2.0 s, 500 B/s\n"))
        #expect(output.contains("com.example.voices paused from another shell\n"))
        #expect(!output.contains("\u{1B}[?25l"))  // never hides the cursor
        // Every drawn line fits the 59 usable columns.
        for line in Formatting.visible(output).unicodeScalars.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            #expect(line.count <= 59)
        }
        #expect(!output.contains("finished"))
    }

    @Test func lineReporterWritesJSONAndFinishEvents() async throws {
        let capture = Capture()
        let reporter = LineProgressReporter(format: .json(JSONEventWriter()), output: { capture.write($0) })
        await reporter.update(Self.row("active", 10))
        await reporter.update(Self.row("finished", 1000))
        await reporter.message("not JSON, so not written")
        await reporter.finish(summary: RunSummary(files: 1, bytes: 1000, elapsed: 1))
        await reporter.finish(summary: nil)
        let lines = capture.value.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let events = try lines.map { try Self.parse($0)["event"] as? String }
        #expect(events == ["state", "state", "finish"])
    }
}
