internal import ContentDelivery
internal import ContentPackaging
internal import Foundation
internal import Logging
internal import SystemSupport

/// The plan stage's step for an archive packed with a dictionary (``PackageManifest/dictionary``): its stored frame,
/// the archive's first bytes, fetched once with a range request from the archive's URLs, checked against the signed
/// manifest's record (length, SHA-256, size, ID) and kept in the store beside the manifest
/// (``Store/dictionaryFile(productID:version:)``), where a resumed download reads it back and checks it again.
///
/// No frame is decoded before this: the dictionary is part of the chain — catalog, manifest, dictionary, chunk —
/// and a chunk decoded with it must still match its own SHA-256. A server that answers the range with the whole
/// archive is read only as far as the dictionary.
///
/// Owner: the planning thread (`iap-update`); blocking.
struct DictionaryFetch: Sendable {
    let store: Store
    /// The catalog whose URLs the archive comes from (`nil`: only a kept copy can be used).
    let catalog: CatalogSource?
    /// The archives' connection settings.
    let transport: TransferSettings

    /// The dictionary `record` names for `product`'s archive: the copy kept in the store when it still checks out,
    /// else fetched from each of the archive's URLs in turn and kept.
    /// - Throws: ``InstallError/archiveMismatch(path:reason:)`` naming every URL tried and why it failed.
    func load(_ record: ArchiveDictionary, for product: CatalogProduct) throws(InstallError) -> FrameDictionary {
        let file = store.dictionaryFile(productID: product.productID, version: product.contentVersion.description)
        if let kept = try? Self.kept(at: file.path, record: record) { return kept }
        let urls = catalog?.archiveURLCandidates(for: product) ?? []
        var reasons: [String] = []
        // Each URL in turn, the list again after a pause while only transient failures (no answer, 429, 5xx) were
        // met: a mirror that is busy for a moment does not fail the download, one that serves other bytes does.
        for (round, pause) in Self.pauses.enumerated() {
            if round > 0 { Thread.sleep(forTimeInterval: pause) }
            var transient = false
            for url in urls {
                do throws(DictionaryError) {
                    let bytes = try fetch(url, length: Int(record.length), transient: &transient)
                    let dictionary = try FrameDictionary(stored: bytes, record: record)
                    do { try DurableFile.writeUnsynced(Data(bytes), to: file) } catch {
                        DownloadLog.transfer.notice("the dictionary is not kept; a resumed download fetches it again", metadata: ["path": "\(file.path)", "reason": "\(error)"])
                    }
                    return dictionary
                } catch {
                    reasons.append("\(url): \(error.message)")
                }
            }
            guard transient else { break }
        }
        throw .archiveMismatch(
            path: urls.first ?? product.productID,
            reason: "the archive's dictionary (its first \(record.length) bytes, SHA-256 \(record.sha256)) could not be fetched and checked: \(reasons.isEmpty ? "no URL to fetch it from" : reasons.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(separator: "; ")); check the network, or tell the publisher when a mirror serves another archive")
    }

    /// The dictionary kept at `path`, checked against `record` as a fetched one is.
    /// - Throws: ``InstallError/archiveMismatch(path:reason:)`` when it is missing or does not check out.
    static func kept(at path: String, record: ArchiveDictionary) throws(InstallError) -> FrameDictionary {
        // Read no further than the record's length, from a regular file only: a FIFO or a huge file put there is no hang.
        let bytes: [UInt8]
        do { bytes = try PositionalRead.start(ofRegularFile: path, count: Int(record.length) + 1) } catch {
            throw .archiveMismatch(path: path, reason: "the archive's dictionary is not in the store (\(error)); run the download again to fetch it")
        }
        do throws(DictionaryError) { return try FrameDictionary(stored: bytes, record: record) } catch {
            throw .archiveMismatch(path: path, reason: "\(error.message); run the download again to fetch it")
        }
    }

    /// The pause before each round over the URLs: none, then 0.5 s and 2 s after rounds that met only transient failures.
    static let pauses: [Double] = [0, 0.5, 2]

    /// The archive's first `length` bytes from `url`: a range request, or the start of a whole-file answer;
    /// `transient` is set when it failed in a way a retry may not (no answer, 429, 5xx).
    private func fetch(_ url: String, length: Int, transient: inout Bool) throws(DictionaryError) -> [UInt8] {
        guard let parsed = URL(string: url) else { throw DictionaryError("not a URL") }
        if parsed.isFileURL { return try Self.readStart(parsed.path, length: length) }
        let (response, failure) = DocumentRequest.get(
            parsed, transport: transport, headers: ["Range: bytes=0-\(length - 1)"], limit: length, keepingPrefix: true)
        guard response.status == 206 || response.status == 200 else {
            if response.status == 0 || response.status == 429 || (500...599).contains(response.status) { transient = true }
            throw DictionaryError(response.status == 0 ? "\(failure.map { "\($0)" } ?? "no answer")" : "HTTP \(response.status)")
        }
        guard response.body.count == length else {
            throw DictionaryError("the answer holds \(response.body.count) bytes, not the dictionary's \(length)\(failure.map { " (\($0))" } ?? "")")
        }
        return [UInt8](response.body)
    }

    /// The first `length` bytes of the local file at `path` (a catalog on this machine's disk, or the store's copy):
    /// a regular file only, never waited on.
    private static func readStart(_ path: String, length: Int) throws(DictionaryError) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try PositionalRead.start(ofRegularFile: path, count: length) } catch { throw DictionaryError("\(error)") }
        guard bytes.count == length else { throw DictionaryError("the file ends before the dictionary's \(length) bytes") }
        return bytes
    }
}
