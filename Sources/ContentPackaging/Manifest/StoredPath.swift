/// A path as the manifest model keeps it: a range of UTF-8 bytes in an immutable byte buffer that many paths
/// share (16 bytes: the buffer's reference, a 32-bit start and a 32-bit count).
///
/// **Why.** A path `String` longer than 15 bytes is a heap object of its own: about 85 bytes with the allocator's
/// overhead for a 35-byte path, so a manifest of a million files held tens of megabytes of path text. Paths built
/// together (a decoded compact manifest, a packed folder) share one buffer through ``Builder``, so a path costs
/// its bytes and 16, and no allocation. The model's `path` properties still read and write `String`, made when
/// asked; code that compares or looks up many paths uses the bytes (``withUTF8(_:)``, ``utf8``, `==`, hashing).
///
/// Equality and hashing are by bytes, the order manifests are sorted in; unlike `String`, two spellings of one
/// name in different Unicode normalizations are different paths.
package struct StoredPath: Sendable, Hashable {
    /// The shared buffer. An array's storage is a reference-counted heap object that nothing changes once a
    /// path holds it (a write would copy it), so it is the immutable shared buffer, with no wrapper object.
    private let buffer: [UInt8]
    /// Where the path starts in ``buffer``.
    private let start: UInt32
    /// The path's length in bytes.
    private let length: UInt32

    /// A path in a buffer of its own, holding `string`'s UTF-8.
    package init(_ string: String) {
        self.init(bytes: Array(string.utf8))
    }

    /// A path made of all of `bytes` (no copy: the path holds the array's storage).
    package init(bytes: [UInt8]) {
        precondition(bytes.count <= Int(UInt32.max), "a path of at most 4 GiB")
        buffer = bytes
        start = 0
        length = UInt32(bytes.count)
    }

    /// `count` bytes from `start` of `buffer`, which the caller no longer changes.
    package init(buffer: [UInt8], start: Int, count: Int) {
        precondition(start >= 0 && count >= 0 && start + count <= buffer.count && start + count <= Int(UInt32.max), "a path within its buffer, at most 4 GiB in")
        self.buffer = buffer
        self.start = UInt32(start)
        self.length = UInt32(count)
    }

    /// The buffer and the range of it this path is, for a record that keeps them apart (``PackageManifest/File``).
    package var storage: (buffer: [UInt8], start: Int, count: Int) { (buffer, Int(start), Int(length)) }

    /// The path as text, decoded when asked (each call makes a new `String`).
    package var string: String {
        withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// The path's length in bytes.
    package var count: Int { Int(length) }

    /// The path's bytes, sharing the buffer (no copy).
    package var utf8: ArraySlice<UInt8> {
        buffer[Int(start)..<Int(start) + Int(length)]
    }

    /// Calls `body` with the path's bytes, valid only during the call.
    package func withUTF8<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try buffer.withUnsafeBufferPointer { (whole) throws(Failure) -> Result in
            try body(UnsafeBufferPointer(rebasing: whole[Int(start)..<Int(start) + Int(length)]))
        }
    }

    /// The path up to its last `/`, sharing the buffer; `nil` when it has none.
    package var parent: StoredPath? {
        withUTF8 { $0.lastIndex(of: UInt8(ascii: "/")) }.map(prefix)
    }

    /// The first `count` bytes, sharing the buffer.
    package func prefix(_ count: Int) -> StoredPath {
        precondition(count >= 0 && count <= self.count, "a prefix within the path")
        return StoredPath(buffer: buffer, start: Int(start), count: count)
    }

    /// Same bytes.
    package static func == (lhs: StoredPath, rhs: StoredPath) -> Bool {
        guard lhs.length == rhs.length else { return false }
        return lhs.withUTF8 { left in rhs.withUTF8 { right in left.elementsEqual(right) } }
    }

    /// Hashes the bytes.
    package func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether this path's bytes lie in the same buffer as `other`'s (paths decoded or built together, or shared
    /// with another manifest), which is what lets a million paths cost their bytes once.
    package func sharesBuffer(with other: StoredPath) -> Bool {
        buffer.withUnsafeBufferPointer { mine in other.buffer.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress } }
    }

    /// Whether this path sorts before `other` byte-wise (the order manifests list paths in).
    package func precedes(_ other: StoredPath) -> Bool {
        withUTF8 { left in other.withUTF8 { right in left.lexicographicallyPrecedes(right) } }
    }

    /// Collects many paths' bytes in one buffer, then hands out the paths, all sharing it.
    ///
    /// ```swift
    /// var builder = StoredPath.Builder()
    /// builder.append(Array("Contents".utf8))
    /// builder.append(Array("Contents/a.txt".utf8))
    /// let paths = builder.finish()  // two paths, one buffer
    /// ```
    package struct Builder {
        /// Every path's bytes, one after another.
        private var bytes: [UInt8] = []
        /// Where each path ends in ``bytes``.
        private var ends: [UInt32] = []

        /// An empty builder with room for `paths` paths of `bytes` bytes in all (a hint; more still fit).
        package init(paths: Int = 0, bytes: Int = 0) {
            self.bytes.reserveCapacity(bytes)
            ends.reserveCapacity(paths)
        }

        /// The number of paths appended so far.
        package var count: Int { ends.count }

        /// Appends one path's bytes.
        package mutating func append(_ path: some Collection<UInt8>) {
            bytes.append(contentsOf: path)
            precondition(bytes.count <= Int(UInt32.max), "at most 4 GiB of paths in one buffer")
            ends.append(UInt32(bytes.count))
        }

        /// Every path appended, in order, sharing one buffer (copied to its exact size when much of it is unused).
        package consuming func finish() -> [StoredPath] {
            finish { $0 }
        }

        /// `transform` of every path appended, in order, the paths sharing one buffer as ``finish()``'s do; makes
        /// the records that hold them without a list of the paths besides.
        package consuming func finish<Element>(_ transform: (StoredPath) -> Element) -> [Element] {
            // A buffer that grew by doubling may be half unused; a copy of exactly the bytes does not keep
            // that for good (one reserved to size is kept as it is).
            let exact = bytes.capacity - bytes.count <= bytes.count / 8
                ? bytes
                : [UInt8](unsafeUninitializedCapacity: bytes.count) { target, initialized in
                    initialized = target.initialize(fromContentsOf: bytes)
                }
            bytes = []
            var elements: [Element] = []
            elements.reserveCapacity(ends.count)
            var start = 0
            for end in ends {
                elements.append(transform(StoredPath(buffer: exact, start: start, count: Int(end) - start)))
                start = Int(end)
            }
            return elements
        }
    }
}

extension StoredPath: Codable {
    /// Reads the text a JSON manifest holds, into a buffer of its own.
    package init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Writes the path as text.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(string)
    }
}
