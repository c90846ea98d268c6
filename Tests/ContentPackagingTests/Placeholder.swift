import Testing

@Test func placeholder_ContentPackagingTests() { #expect(Bool(true)) }
