import ContentPackaging
import Foundation
import Testing
import TestSupport

/// The pack methods over the socket: a purchase installs German voices (the daemon's `--select language=de`),
/// `packs` lists the packs, `changeSelection` switches to French fetching only what is not on disk, and a
/// subscriber sees the switch's download (progress, finished with the folder) and `packs.changed`.
@Suite("Daemon: packs and variant switches", .serialized)
struct DaemonPackTests {
    static let productID = "com.example.daemon.voiced"

    /// A product with an essential core, an on-demand high-resolution pack and German and French voices.
    static func voicedFolder(in fixture: DaemonFixture) throws -> (folder: URL, files: [String: Data]) {
        let files: [String: Data] = [
            "Contents/core.bin": PackageFixture.bytes(count: 256 << 10, seed: 11),
            "Contents/HiRes/textures.bin": PackageFixture.bytes(count: 256 << 10, seed: 12),
            "Contents/Voices#language=de/intro.ogg": PackageFixture.bytes(count: 3 << 20, seed: 13),
            "Contents/Voices#language=de/credits.txt": Data("Sprecher: A. Muster\n".utf8),
            "Contents/Voices#language=fr/intro.ogg": PackageFixture.bytes(count: 3 << 20, seed: 14),
            "Contents/Voices#language=fr/credits.txt": Data("Voix : A. Exemple\n".utf8),
        ]
        let folder = try PackageFixture.make(
            at: fixture.root.appendingPathComponent("sources/voiced"), productID: productID, files: files,
            extraKeys: [
                "Packs": [
                    "hires": ["Policy": "onDemand", "Paths": ["Contents/HiRes"]],
                    "voices": ["Policy": "essential", "Paths": ["Contents/Voices"]],
                ],
                "Variants": ["language": ["Default": "de"]],
            ])
        return (folder, files)
    }

    @Test func installGermanListPacksSwitchToFrench() async throws {
        // One connection at 1 MiB/s: the 3 MiB switch's chunks land about a second apart, so progress shows.
        let fixture = try DaemonFixture(locationConfig: "limit_rate 1m;")
        let (folder, files) = try Self.voicedFolder(in: fixture)
        try fixture.publish(folder: folder)
        let daemon = try fixture.startDaemon(["--select", "language=de", "--connections", "1", "--max-connections", "1"])
        let client = try RPCTestClient(path: fixture.socketPath)
        _ = try client.result("subscribe")
        _ = try client.result("add", ["transactionID": "t-voiced", "productID": Self.productID])
        let installed = client.waitForNotification(timeout: 90) { $0["method"] as? String == "download.finished" }
        let content = try #require((installed?["params"] as? [String: Any])?["contentURL"] as? String, "\(daemon.output)")
        let intro = URL(fileURLWithPath: content).appendingPathComponent("Contents/Voices/intro.ogg")
        #expect(try Data(contentsOf: intro) == files["Contents/Voices#language=de/intro.ogg"])
        _ = try client.result("finish", ["transactionID": "t-voiced"])

        let packs = try #require(try client.call("packs", ["productID": Self.productID])["result"] as? [[String: Any]])
        #expect(packs.map { $0["id"] as? String } == ["core", "hires", "voices"], "\(packs)")
        let hires = try #require(packs.first { $0["id"] as? String == "hires" })
        #expect(hires["policy"] as? String == "onDemand" && hires["installed"] as? Bool == false, "\(hires)")
        #expect((hires["bytesToFetch"] as? Int ?? 0) > 0, "\(hires)")
        #expect(packs.first { $0["id"] as? String == "voices" }?["installed"] as? Bool == true, "\(packs)")

        let before = client.notifications.count
        let switched = try client.call(
            "changeSelection", ["productID": Self.productID, "select": ["language": ["fr"]]], timeout: 90)
        #expect(switched["result"] is [[String: Any]], "\(switched)")
        let french = try #require(try client.result("content", ["productID": Self.productID])["contentURL"] as? String)
        let voices = URL(fileURLWithPath: french).appendingPathComponent("Contents/Voices")
        #expect(try Data(contentsOf: voices.appendingPathComponent("intro.ogg")) == files["Contents/Voices#language=fr/intro.ogg"])
        #expect(try Data(contentsOf: voices.appendingPathComponent("credits.txt")) == files["Contents/Voices#language=fr/credits.txt"])
        #expect(try client.result("verify", ["productID": Self.productID])["isIntact"] as? Bool == true)

        // The switch's download reached the subscriber: its progress, then finished with the folder, then the packs.
        let changed = client.waitForNotification(timeout: 30) { $0["method"] as? String == "packs.changed" }
        #expect((changed?["params"] as? [String: Any])?["productID"] as? String == Self.productID, "\(daemon.output)")
        let told = client.notifications[before...].compactMap { message -> (String, [String: Any])? in
            guard let method = message["method"] as? String, let params = message["params"] as? [String: Any] else { return nil }
            return (method, params)
        }
        let ofSwitch = told.filter { (($0.1["download"] as? [String: Any])?["productID"] as? String) == Self.productID }
        #expect(ofSwitch.contains { $0.0 == "download.progress" }, "\(told.map(\.0))")
        let finished = ofSwitch.first { $0.0 == "download.finished" }
        #expect(finished?.1["contentURL"] as? String == french, "\(told.map(\.0))")
        #expect(finished?.1["transactionIDs"] as? [String] == [], "no transaction asked for the switch: \(String(describing: finished))")
        let order = told.map(\.0)
        #expect(order.firstIndex(of: "download.finished") ?? .max < order.firstIndex(of: "packs.changed") ?? -1, "\(order)")

        try Self.requestHiRes(client, files: files)

        // A malformed axis is a params error naming it.
        let bad = try #require(rpcError(try client.call("changeSelection", ["productID": Self.productID, "select": ["language": ["f r"]]])))
        #expect(bad.code == -32602 && bad.message.contains("select.language"), "\(bad)")
        #expect(daemon.stop() == 0)
    }

    /// An on-demand pack comes when asked, keeping the variants installed; an unknown pack is refused by name.
    static func requestHiRes(_ client: RPCTestClient, files: [String: Data]) throws {
        let requested = try #require(try client.call("requestPacks", ["productID": Self.productID, "packs": ["hires"]], timeout: 90)["result"] as? [[String: Any]])
        #expect(requested.first { $0["id"] as? String == "hires" }?["installed"] as? Bool == true, "\(requested)")
        let now = try #require(try client.result("content", ["productID": Self.productID])["contentURL"] as? String)
        #expect(try Data(contentsOf: URL(fileURLWithPath: now).appendingPathComponent("Contents/HiRes/textures.bin")) == files["Contents/HiRes/textures.bin"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: now).appendingPathComponent("Contents/Voices/intro.ogg")) == files["Contents/Voices#language=fr/intro.ogg"])
        let unknown = try #require(rpcError(try client.call("requestPacks", ["productID": Self.productID, "packs": ["nope"]])))
        #expect(unknown.code == -32000 && unknown.message.contains("nope"), "\(unknown)")
    }
}
