import Testing

@Test func placeholder_ContentDownloadsTests() { #expect(Bool(true)) }
