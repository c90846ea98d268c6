import ContentPackaging
import Testing

@Suite("ExecutableSniffer")
struct ExecutableSnifferTests {
    private func kind(_ bytes: [UInt8], peek: [Int64: [UInt8]] = [:]) -> String? {
        ExecutableSniffer.kind(prefix: bytes) { peek[$0] }
    }

    @Test("recognises each executable format", arguments: [
        [0x7F, 0x45, 0x4C, 0x46], [0xFE, 0xED, 0xFA, 0xCE], [0xCE, 0xFA, 0xED, 0xFE], [0xFE, 0xED, 0xFA, 0xCF],
        [0xCF, 0xFA, 0xED, 0xFE], [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 1], [0xCA, 0xFE, 0xBA, 0xBF, 0, 0, 0, 0x1F],
        Array("#!/usr/bin/env python3".utf8),
    ] as [[UInt8]])
    func executables(_ bytes: [UInt8]) {
        #expect(kind(bytes) != nil)
    }

    @Test("data is not code", arguments: [
        [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0x34],  // Java 8 class file
        [0xCA, 0xFE, 0xBA, 0xBE, 0, 3, 0, 0x2D],  // Java 1.1 with a minor version
        [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0],  // zero architectures
        Array("# not a shebang".utf8), [0x89, 0x50, 0x4E, 0x47], Array("MZ".utf8), [],
    ] as [[UInt8]])
    func data(_ bytes: [UInt8]) {
        #expect(kind(bytes) == nil)
    }

    @Test("PE needs a valid PE signature at e_lfanew")
    func portableExecutable() {
        var header = [UInt8](repeating: 0, count: 64)
        header[0] = 0x4D
        header[1] = 0x5A
        header[0x3C] = 0x80
        #expect(kind(header, peek: [0x80: [0x50, 0x45, 0, 0]]) != nil)
        #expect(kind(header, peek: [0x80: [0x50, 0x45, 1, 0]]) == nil)
        #expect(kind(header) == nil)  // e_lfanew past the end of the file: a DOS stub or plain data
    }
}
