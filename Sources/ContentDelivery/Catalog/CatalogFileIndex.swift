package import Foundation
import Glibc
import SystemSupport

/// A `catalog.json` read without holding it whole: its header (every key but `products`, decoded as ``Catalog``
/// with no products) and where each product's entry lies in the file, so a store of a million products is read
/// product by product (`repo add` keeps the byte ranges, about 16 bytes a product, not the entries).
///
/// One pass over the file in 4 MiB reads finds the structure (strings, escapes, nesting); each entry is decoded
/// only when asked for, by ``products(_:)`` or ``product(_:)``, which read its bytes again with `pread`. A file
/// whose structure is broken is refused with the byte offset of the first fault.
package struct CatalogFileIndex: Sendable {
    /// Where one product's entry lies in the file.
    package struct Entry: Sendable {
        /// The offset of its opening `{`.
        package var offset: Int64
        /// Its length, from `{` to `}` inclusive.
        package var length: Int32
    }

    /// The file.
    package let path: String
    /// Every key of the catalog but `products`, and `products` empty.
    package let header: Catalog
    /// The products' entries, in the file's order.
    package let entries: [Entry]

    /// Largest header value kept (`baseURLs` and the dates are far smaller).
    static let maxHeaderValueBytes = 1 << 20
    /// Largest product entry (a catalog entry with packs, variants and patches is a few KiB).
    static let maxEntryBytes = 1 << 24

    /// Indexes the catalog at `path`.
    ///
    /// - Throws: ``CatalogVerificationError/malformedCatalog(_:)`` naming the byte offset or key at fault.
    package init(path: String) throws(CatalogVerificationError) {
        self.path = path
        var scanner = Scanner()
        // O_NONBLOCK: a FIFO in its place is refused below instead of waiting for a writer.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .malformedCatalog("\(path): cannot open (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .malformedCatalog("\(path): is not a regular file; write the catalog with `iapcontent catalog`")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .malformedCatalog("\(path): read failed at byte \(scanner.offset) (\(String(cString: strerror(errno))))")
            }
            if count == 0 { break }
            do throws(ScanError) { try scanner.scan(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) } catch {
                throw .malformedCatalog("\(path): \(error.message)")
            }
        }
        do throws(ScanError) { try scanner.finish() } catch { throw .malformedCatalog("\(path): \(error.message)") }
        guard scanner.sawProducts else { throw .malformedCatalog("\(path): missing key products") }
        var json: [UInt8] = Array("{".utf8)
        for (key, value) in scanner.headerValues {
            json += Array("\"\(key)\":".utf8) + value + Array(",".utf8)
        }
        json += Array("\"products\":[]}".utf8)
        header = try Catalog.load(from: Data(json))
        entries = scanner.entries
    }

    /// The entries `range` (contiguous in the file), decoded with one decoder call.
    ///
    /// - Throws: ``CatalogVerificationError/malformedCatalog(_:)`` naming `products[N]` and the key at fault.
    package func products(_ range: Range<Int>, decoder: JSONDecoder) throws(CatalogVerificationError) -> [CatalogProduct] {
        guard let first = range.first, let last = range.last else { return [] }
        let start = entries[first].offset
        let end = entries[last].offset + Int64(entries[last].length)
        let fd = try openFile()
        defer { close(fd) }
        var bytes = [UInt8(ascii: "[")]
        bytes += try self.bytes(fd, Int(end - start), at: start)
        bytes.append(UInt8(ascii: "]"))
        return try decode(bytes, indexes: Array(range), decoder: decoder)
    }

    /// The entries at `indexes` (anywhere in the file), decoded with one decoder call: a decoder call has a fixed
    /// cost several times that of one small entry, so a bin's products are decoded together.
    ///
    /// - Throws: ``CatalogVerificationError/malformedCatalog(_:)`` naming `products[N]` and the key at fault.
    package func products(at indexes: [Int], decoder: JSONDecoder) throws(CatalogVerificationError) -> [CatalogProduct] {
        let fd = try openFile()
        defer { close(fd) }
        var bytes = [UInt8(ascii: "[")]
        for index in indexes {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            bytes += try self.bytes(fd, Int(entries[index].length), at: entries[index].offset)
        }
        bytes.append(UInt8(ascii: "]"))
        return try decode(bytes, indexes: indexes, decoder: decoder)
    }

    /// `bytes`, the list of the entries at `indexes`, decoded; when the list does not decode, the first entry at
    /// fault is decoded alone, for an error that names it.
    private func decode(_ bytes: [UInt8], indexes: [Int], decoder: JSONDecoder) throws(CatalogVerificationError) -> [CatalogProduct] {
        // Entries as `iapcontent catalog` writes them are read from the parsed JSON; any other list goes to the
        // decoder, which decodes what it accepts and names the key at fault in what it refuses.
        if case .array(let elements)? = try? JSONParser.parse(bytes) {
            let products = elements.compactMap(CatalogProduct.init(strictJSON:))
            if products.count == indexes.count, products.count == elements.count { return products }
        }
        if let products = try? decoder.decode([CatalogProduct].self, from: Data(bytes)) { return products }
        for index in indexes { _ = try product(index, decoder: decoder) }
        throw .malformedCatalog("\(path): products \(indexes.first ?? 0)… do not decode as a list")
    }

    /// Entry `index`, decoded.
    ///
    /// - Throws: ``CatalogVerificationError/malformedCatalog(_:)`` naming `products[index]` and the key at fault.
    package func product(_ index: Int, decoder: JSONDecoder) throws(CatalogVerificationError) -> CatalogProduct {
        let entry = entries[index]
        let fd = try openFile()
        defer { close(fd) }
        let bytes = try self.bytes(fd, Int(entry.length), at: entry.offset)
        do { return try decoder.decode(CatalogProduct.self, from: Data(bytes)) } catch let error as DecodingError {
            throw .malformedCatalog("\(path): products[\(index)] (byte \(entry.offset)): \(error.humanDescription)")
        } catch {
            throw .malformedCatalog("\(path): products[\(index)] (byte \(entry.offset)): \(error)")
        }
    }

    private func openFile() throws(CatalogVerificationError) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .malformedCatalog("\(path): cannot open (\(String(cString: strerror(errno))))") }
        return fd
    }

    /// `count` bytes at `offset` of `fd`.
    private func bytes(_ fd: Int32, _ count: Int, at offset: Int64) throws(CatalogVerificationError) -> [UInt8] {
        var done = 0
        var failedAt: Int?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            while done < count {
                let got = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else {
                    failedAt = done
                    break
                }
                done += got
            }
            initialized = done
        }
        if let failedAt { throw .malformedCatalog("\(path): changed while it was read (no bytes at \(offset + Int64(failedAt)))") }
        return bytes
    }
}

extension CatalogFileIndex {
    /// A fault in the file's structure.
    struct ScanError: Error {
        var message: String
    }

    /// The structure of a JSON document, byte by byte: just enough to find the top-level keys, keep every value
    /// but `products`, and find each element of `products`. The values themselves are checked when decoded.
    struct Scanner {
        /// Bytes seen so far.
        var offset: Int64 = 0
        /// The values of the top-level keys but `products`, raw, in the file's order.
        var headerValues: [(String, [UInt8])] = []
        /// The elements of `products`.
        var entries: [Entry] = []
        var sawProducts = false

        private var depth = 0
        private var inString = false
        private var escaped = false
        private var started = false
        private var ended = false
        /// At depth 1: the key being read, the key whose value follows, and whether a value is being read.
        private var keyBytes: [UInt8] = []
        private var readingKey = false
        private var currentKey: String?
        private var valueBytes: [UInt8]?
        private var inProducts = false
        private var entryStart: Int64?

        mutating func scan(_ bytes: UnsafeRawBufferPointer) throws(ScanError) {
            for byte in bytes {
                try step(byte)
                offset += 1
            }
        }

        mutating func finish() throws(ScanError) {
            guard started, ended else { throw ScanError(message: "ends at byte \(offset) before the top-level object closes") }
        }

        private func fail(_ problem: String) -> ScanError {
            ScanError(message: "\(problem) at byte \(offset)")
        }

        private mutating func step(_ byte: UInt8) throws(ScanError) {
            if valueBytes != nil {
                valueBytes!.append(byte)
                guard valueBytes!.count <= CatalogFileIndex.maxHeaderValueBytes else {
                    throw fail("the value of key \(currentKey ?? "?") is over \(CatalogFileIndex.maxHeaderValueBytes) bytes")
                }
            }
            if readingKey, !(byte == UInt8(ascii: "\"") && !escaped) {
                keyBytes.append(byte)
                guard keyBytes.count <= 256 else { throw fail("a top-level key is over 256 bytes") }
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if readingKey {
                        readingKey = false
                        currentKey = String(decoding: keyBytes, as: UTF8.self)
                    }
                }
                return
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                return
            case UInt8(ascii: "\""):
                if !started || ended { throw fail("a string outside the top-level object") }
                if inProducts, depth == 2 { throw fail("products[\(entries.count)] is not an object") }
                beginValueIfNeeded(byte)
                if depth == 1, currentKey == nil, valueBytes == nil {
                    readingKey = true
                    keyBytes = []
                }
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if !started {
                    guard byte == UInt8(ascii: "{") else { throw fail("the catalog is not a JSON object") }
                    started = true
                    depth = 1
                    return
                }
                if ended { throw fail("bytes after the top-level object") }
                if inProducts, depth == 2 {
                    guard byte == UInt8(ascii: "{") else { throw fail("products[\(entries.count)] is not an object") }
                    entryStart = offset
                } else if depth == 1, currentKey == "products", valueBytes == nil {
                    guard byte == UInt8(ascii: "[") else { throw fail("products is not a list") }
                    guard !sawProducts else { throw fail("a second key products") }
                    sawProducts = true
                    inProducts = true
                } else {
                    beginValueIfNeeded(byte)
                }
                depth += 1
                guard depth <= 64 else { throw fail("nesting deeper than 64") }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard started, !ended, depth > 0 else { throw fail("an unbalanced \(Character(UnicodeScalar(byte)))") }
                depth -= 1
                if depth == 0 {
                    guard byte == UInt8(ascii: "}") else { throw fail("the top-level object closes with ]") }
                    endValue()
                    ended = true
                } else if inProducts, depth == 2, let start = entryStart {
                    let length = offset + 1 - start
                    guard length <= CatalogFileIndex.maxEntryBytes else {
                        throw fail("products[\(entries.count)] is over \(CatalogFileIndex.maxEntryBytes) bytes")
                    }
                    entries.append(Entry(offset: start, length: Int32(length)))
                    entryStart = nil
                } else if inProducts, depth == 1 {
                    inProducts = false
                    currentKey = nil
                }
            case UInt8(ascii: ","):
                if depth == 1 { endValue() }
            case UInt8(ascii: ":"):
                if depth == 1 {
                    guard currentKey != nil, valueBytes == nil else { throw fail("a colon without a key") }
                }
            default:
                if !started || ended { throw fail("bytes outside the top-level object") }
                if inProducts, depth == 2 { throw fail("products[\(entries.count)] is not an object") }
                beginValueIfNeeded(byte)
            }
        }

        /// At depth 1, after a key and its colon: the first byte of a value other than `products` starts the copy.
        private mutating func beginValueIfNeeded(_ byte: UInt8) {
            guard depth == 1, let key = currentKey, key != "products", valueBytes == nil else { return }
            // The copy starts with the byte being stepped (later bytes are appended as they are stepped).
            valueBytes = [byte]
        }

        private mutating func endValue() {
            if let key = currentKey, var value = valueBytes {
                // The copy holds the `,` or `}` that ended it.
                value.removeLast()
                headerValues.append((key, value))
            }
            valueBytes = nil
            currentKey = nil
        }
    }
}
